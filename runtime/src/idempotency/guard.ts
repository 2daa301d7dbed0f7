// The guard's per-request flow on a covered route: validate the key, ask the store, answer a
// duplicate (409 or replay), or run the handler and record or release its outcome.
import { channel } from 'node:diagnostics_channel';
import type { NextFunction, Request, Response } from 'express';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import { captureResponse, failCapture, isCaptured } from './capture.js';
import { buildKeyInfo } from './key-info.js';
import { decodeKey, MALFORMED_KEY, readKey, type DecodedKey } from './key-header.js';
import { IdempotentConflictHandling } from './options.js';
import { sendConflict, sendFingerprintMismatch, sendKeyProblem, type KeyRule } from './problems.js';
import { guardRuntimeOf, routeTemplates, type GuardRuntime } from './runtime.js';
import { principalId } from '../auth/user.js';
import { resolveScope } from './scope.js';
import type { CachedResponse, IdempotentKeyInfo, KeyCheckResult } from './store.js';

/** What the guard decided for one request. */
export type IdempotencyOutcome = 'new' | 'replayed' | 'conflict' | 'key_reused';

/** Where each decision is published with `{ outcome }`, for metrics. */
export const IDEMPOTENCY_CHANNEL = 'slicekit:idempotency';

const outcomes = channel(IDEMPOTENCY_CHANNEL);

/** Publishes a decision, only while someone listens: nothing is built when metrics are off. */
function publishOutcome(outcome: IdempotencyOutcome): void {
  if (outcomes.hasSubscribers) outcomes.publish({ outcome });
}

/** The header set on every replayed response. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Presence, encoding, length and pattern, in that order (the string form is checked before):
 * the decoded key, or the rule it breaks. The length counts UTF-8 bytes as sent.
 */
export function checkKey(raw: string | null, runtime: GuardRuntime): DecodedKey | KeyRule {
  if (raw === null || raw.trim() === '') return 'required';
  const decoded = decodeKey(raw);
  if (decoded === undefined) return 'utf-8';
  if (decoded.bytes > runtime.options.maxIdempotencyKeyLength) return 'max-length';
  if (!runtime.matches(decoded.key)) return 'pattern';
  return decoded;
}

/**
 * The route template: mount paths + route path as declared (so `/orders/:id`, not `/orders/7`).
 * When a route is reachable through several mounts, or a path is a RegExp or an array, the
 * matched mount path (`req.baseUrl`) stands in for the mount template.
 */
function endpointOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  const template = route ? routeTemplates.get(route) : undefined;
  if (template) return template;
  return req.baseUrl + (typeof route?.path === 'string' ? route.path : req.path);
}

/**
 * Sets the recorded headers again, with the strings recorded, so Node writes the same bytes. A
 * name recorded more than once (two `Link`s) is set once with all its values, in order.
 */
function setRecordedHeaders(res: Response, headers: CachedResponse['headers'] | undefined): void {
  if (!headers || headers.length === 0) return;
  const values = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const known = values.get(key);
    if (known) known.values.push(value);
    else values.set(key, { name, values: [value] });
  }
  for (const { name, values: list } of values.values()) {
    res.setHeader(name, list.length === 1 ? list[0]! : list);
  }
}

function replay(res: Response, cached: CachedResponse): void {
  res.status(cached.statusCode);
  setRecordedHeaders(res, cached.headers);
  res.setHeader(REPLAYED_HEADER, 'true');
  if (cached.body === null) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', cached.contentType);
  res.setHeader('Content-Length', cached.body.length);
  res.end(cached.body);
}

/**
 * The middleware `requiredIdempotentKey()` returns, and the one start-up inserts into routes a
 * group covers. A request passes through it at most once, so a route covered twice is guarded once.
 * On the memory store it runs to the handler without a promise (see `IdempotencyKeyStore.synchronous`); on any
 * other store it returns the promise of the store's answer.
 */
export function requiredIdempotentKeyGuard(
  req: Request,
  res: Response,
  next: NextFunction,
): void | Promise<void> {
  // Taken in charge by an earlier guard layer of the same route (covered by group and itself).
  if (isCaptured(req)) return next();
  const app = req.app;
  const runtime = guardRuntimeOf(app);
  if (!runtime) {
    throw new IdempotencyConfigError(
      IdempotencyErrorCode.notStarted,
      'a route requires an idempotency key but the app was not prepared: call `await prepareApp(app)` or `await startApp(app)` before serving requests',
    );
  }
  const { options, store } = runtime;
  const key = readKey(req.headers[runtime.headerName], runtime.structuredKey);
  if (key === MALFORMED_KEY) return sendKeyProblem(res, options, 'structured-string');
  const checked = checkKey(key, runtime);
  if (typeof checked === 'string') return sendKeyProblem(res, options, checked);

  // The caller now, read once: the scope is resolved for it, and the recorder keeps it.
  const principal = principalId(req);
  const info = buildKeyInfo(
    checked.key,
    req.method,
    endpointOf(req),
    resolveScope(req, options, principal),
    options.requestFingerprint ? options.requestFingerprint(req) : null,
  );
  const guarded: Guarded = { req, res, next, app, runtime, info, principal };
  const now = store.synchronous?.();
  if (now) return answer(guarded, now.checkKeyNow(info));
  // Not caught: a store failure here reaches the app's error handler (500), per the spec.
  return store.isKeyProcessed(info).then((check) => answer(guarded, check));
}

/** One guarded request, as the guard hands it on once the store has answered. */
interface Guarded {
  readonly req: Request;
  readonly res: Response;
  readonly next: NextFunction;
  readonly app: Request['app'];
  readonly runtime: GuardRuntime;
  readonly info: IdempotentKeyInfo;
  /** The caller the scope was resolved for. */
  readonly principal: string | undefined;
}

/** What the guard does with the store's answer: run the handler, or answer the duplicate. */
function answer(guarded: Guarded, check: KeyCheckResult): void {
  const { req, res, runtime, info } = guarded;
  if (!check.processed) {
    publishOutcome('new');
    captureResponse(req, res, guarded.app, runtime, info, check.reservation, guarded.principal);
    return guarded.next();
  }
  const { options } = runtime;
  // A stored fingerprint of null (none kept, or an entry older than fingerprints) cannot differ.
  const { fingerprint } = info;
  const stored = check.fingerprint;
  if (fingerprint !== null && typeof stored === 'string' && stored !== fingerprint) {
    options.logger.debug(
      { idempotencyKey: info.safeKey, method: info.method, endpoint: info.endpoint },
      'idempotency: key reused for a different request',
    );
    publishOutcome('key_reused');
    return sendFingerprintMismatch(res, options, check.response === null);
  }
  options.logger.debug(
    { idempotencyKey: info.safeKey, method: info.method, endpoint: info.endpoint },
    check.response
      ? 'idempotency: duplicate of a completed request'
      : 'idempotency: duplicate of a request in flight',
  );
  if (check.response && options.conflictHandling === IdempotentConflictHandling.CachedResult) {
    publishOutcome('replayed');
    return replay(res, check.response);
  }
  publishOutcome('conflict');
  sendConflict(res, options, check.response === null);
}

/** Appended to every guarded route: a thrown handler error releases the key, then propagates. */
export function releaseOnError(
  err: unknown,
  req: Request,
  _res: Response,
  next: NextFunction,
): void {
  failCapture(req);
  next(err);
}
