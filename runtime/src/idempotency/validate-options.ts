// The rules options must satisfy, checked when the app starts (not at registration) so that one
// OptionsValidationError lists every broken rule at once.
import { durationMs } from './duration.js';
import { OptionsValidationError } from './errors.js';
import { IdempotentConflictHandling, type IdempotencyOptions } from './options.js';
import { compileKeyPattern } from './pattern.js';

const isBlank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';
const isInteger = (value: unknown): value is number => Number.isInteger(value);

/** One sentence per broken rule, in a fixed order; empty when the options are usable. */
export function idempotencyOptionsFailures(options: IdempotencyOptions): string[] {
  const failures: string[] = [];
  const fail = (rule: string) => failures.push(rule);

  if (isBlank(options.idempotencyHeaderKey)) fail('idempotencyHeaderKey must not be blank');
  if (isBlank(options.cachePrefix)) fail('cachePrefix must not be blank');
  if (options.scopeHmacSecret !== null && isBlank(options.scopeHmacSecret)) {
    fail('scopeHmacSecret must be null or not blank');
  }
  const expiration = durationMs(options.expiration);
  if (!(expiration > 0)) {
    fail(`expiration must be a positive duration (got ${String(options.expiration)})`);
  }
  const inFlight = durationMs(options.inFlightReservationTimeout);
  if (!(inFlight > 0)) {
    fail(
      `inFlightReservationTimeout must be a positive duration (got ${String(options.inFlightReservationTimeout)})`,
    );
  }
  if (options.jsonSerializerOptions === null || typeof options.jsonSerializerOptions !== 'object') {
    fail('jsonSerializerOptions must be set');
  }
  if (!isInteger(options.maxIdempotencyKeyLength) || options.maxIdempotencyKeyLength < 1) {
    fail('maxIdempotencyKeyLength must be an integer of at least 1');
  }
  if (isBlank(options.idempotencyKeyPattern)) {
    fail('idempotencyKeyPattern must not be blank');
  } else {
    try {
      compileKeyPattern(options.idempotencyKeyPattern);
    } catch (error) {
      fail(`idempotencyKeyPattern does not compile: ${(error as Error).message}`);
    }
  }
  const min = options.minStatusCodeForCaching;
  const max = options.maxStatusCodeForCaching;
  if (!isInteger(min) || min < 100) fail('minStatusCodeForCaching must be an integer >= 100');
  if (!isInteger(max) || max > 599) fail('maxStatusCodeForCaching must be an integer <= 599');
  if (isInteger(min) && isInteger(max) && min > max) {
    fail('minStatusCodeForCaching must not exceed maxStatusCodeForCaching');
  }
  for (const code of options.additionalCacheableStatusCodes ?? []) {
    if (!isInteger(code) || code < 100 || code > 599 || code === 102) {
      fail(
        `additionalCacheableStatusCodes: ${String(code)} is not a status between 100 and 599 (102 is reserved)`,
      );
    }
  }
  if (!Object.values(IdempotentConflictHandling).includes(options.conflictHandling)) {
    fail(`conflictHandling must be 'ConflictResponse' or 'CachedResult'`);
  }
  if (options.keyScopeResolver !== null && typeof options.keyScopeResolver !== 'function') {
    fail('keyScopeResolver must be null or a function');
  }
  if (options.requestFingerprint !== null && typeof options.requestFingerprint !== 'function') {
    fail('requestFingerprint must be null or a function');
  }
  replayedHeadersFailures(options.replayedHeaders, fail);
  return failures;
}

/** RFC 9110 field names: one or more token characters. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a replay must not copy: framing the server computes, and the guard's own marker. */
const NOT_REPLAYABLE = new Set([
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'idempotent-replayed',
]);

function replayedHeadersFailures(headers: unknown, fail: (rule: string) => void): void {
  if (!Array.isArray(headers)) {
    fail('replayedHeaders must be an array of header names');
    return;
  }
  for (const name of headers as unknown[]) {
    if (typeof name !== 'string' || !FIELD_NAME.test(name)) {
      fail(`replayedHeaders: ${JSON.stringify(name)} is not a header name`);
    } else if (NOT_REPLAYABLE.has(name.toLowerCase())) {
      fail(`replayedHeaders: ${name} is not replayed from the record (the server sets it)`);
    }
  }
}

/** Throws `OptionsValidationError` listing every broken rule. */
export function validateIdempotencyOptions(options: IdempotencyOptions): void {
  const failures = idempotencyOptionsFailures(options);
  if (failures.length > 0) throw new OptionsValidationError(failures);
}
