// @slicekit/runtime/testing: helpers for testing slicekit apps and the idempotency store
// conformance suite for anyone writing their own store.
export {
  describeStoreConformance,
  runStoreConformance,
  storeConformanceCases,
  type BoundConformanceCase,
  type ConformanceReport,
  type ConformanceRunner,
} from './store-conformance.js';
export type { StoreConformanceOptions } from './conformance-context.js';
export { conformanceKeyInfo, type KeyInfoParts } from './key-info.js';
