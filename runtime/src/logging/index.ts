// @slicekit/runtime/logging: errors and URLs as log fields without row data or secrets (the
// database errors' codes and placeholder statements, redacted query parameters). See
// docs/reliability.md, "Bad input and logs".
export { safeLoggerOptions, type SafeLoggerOptions } from './logger-options.js';
export {
  REDACTED,
  redactUrl,
  SECRET_QUERY_PARAMETERS,
  type RedactUrlOptions,
} from './redact-url.js';
export { isDatabaseError, safeError, type SafeError } from './safe-error.js';
export { failedStatementOf, recordFailedStatements } from './statements.js';
