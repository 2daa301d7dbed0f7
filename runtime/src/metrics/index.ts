// @slicekit/runtime/metrics: Prometheus metrics of an app process on a port of its own
// (docs/operations.md, "Metrics"). prom-client is an optional peer, loaded by `startMetrics()`.
export * from './channels.js';
export { httpMetrics, OTHER_METHOD, routeTemplateOf, UNMATCHED_ROUTE } from './http.js';
export { DURATION_BUCKETS } from './counters.js';
export {
  metricsDefaults,
  type Metrics,
  type MetricsLogger,
  type MetricsOptions,
} from './options.js';
export { startMetrics } from './start.js';
