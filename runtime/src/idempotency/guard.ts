// The guard's per-request flow on a covered request: validate the key, ask the store, answer a
// duplicate (409 or replay), or run the handler and record or release its outcome.
import { channel } from 'node:diagnostics_channel';
import type { NextFunction, Request, Response } from 'express';
import { safeError } from '../logging/index.js';
import { IdempotencyConfigError, IdempotencyErrorCode, OptionsValidationError } from './errors.js';
import { isGuarded, startRecording } from './recorder.js';
import { registrationOf, type GuardRuntime } from './registration.js';
import { configuredLogger, prepareApp } from './startup.js';
import { buildKeyInfo } from './key-info.js';
import { checkKey, MALFORMED_KEY, readKey } from './key-header.js';
import { IdempotentConflictHandling } from './options.js';
import {
  sendConflict,
  sendFingerprintMismatch,
  sendKeyProblem,
  sendNotPrepared,
} from './problems.js';
import { principalId } from '../auth/index.js';
import { resolveScope } from './scope.js';
import { refuseLaterCaller } from './scope-order.js';
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
 * The key's endpoint: on a route, the matched mount path and the route's path as declared
 * (`/orders/:id`, not `/orders/7`); for a group, its matched mount path, which every route of
 * the group shares (the fingerprint, which holds the path as sent, tells their requests apart).
 */
function endpointOf(req: Request, mount: Mount): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (mount === 'group') return req.baseUrl || '/';
  return req.baseUrl + (typeof path === 'string' ? path : req.path);
}

/**
 * Answers with the recorded response. Its headers are set again with the strings recorded, so Node
 * writes the same bytes, replacing any value set before the guard; a name recorded more than once
 * (two `Link`s) gets all its values, in order, under its first spelling (as `appendHeader` keeps).
 */
function replay(res: Response, cached: CachedResponse): void {
  res.status(cached.statusCode);
  for (const [name] of cached.headers ?? []) res.removeHeader(name);
  for (const [name, value] of cached.headers ?? []) res.appendHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  if (cached.body === null) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', cached.contentType);
  res.setHeader('Content-Length', cached.body.length);
  res.end(cached.body);
}

/** Where the guard runs: in a route's handler list, or as a group's router-level middleware. */
export type Mount = 'route' | 'group';

/**
 * The guard of one request. A request passes through it at most once, so a route covered by its
 * group and by itself is guarded once. On a store with a synchronous core (the memory store) it
 * runs to the handler without a promise; on any other store it returns the promise of the
 * store's answer. An app not yet prepared is prepared first (once, shared by every request).
 */
export function guardRequest(
  req: Request,
  res: Response,
  next: NextFunction,
  mount: Mount,
): void | Promise<void> {
  if (isGuarded(req)) return next();
  const runtime = registrationOf(req.app)?.runtime;
  if (!runtime) return prepareFirst(req, res, next, mount);
  if (mount === 'route' && req.route === undefined) {
    throw new IdempotencyConfigError(
      IdempotencyErrorCode.misplaced,
      `requiredIdempotentKey() is mounted with use() at ${req.baseUrl || '/'}, where no verb is declared; put it on a route (app.post(path, requiredIdempotentKey(), handler)) or declare a group with requiredIdempotentKey(router, ...verbs)`,
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
    endpointOf(req, mount),
    resolveScope(req, options, principal),
    options.requestFingerprint ? options.requestFingerprint(req) : null,
  );
  const guarded: Guarded = { req, res, next, runtime, info, principal };
  const now = store.synchronous?.();
  if (now) return answer(guarded, now.checkKeyNow(info));
  // Not caught: a store failure here reaches the app's error handler (500), per the spec.
  return store.isKeyProcessed(info).then((check) => answer(guarded, check));
}

/** Prepares the app that registered the guard, then guards; refuses the request if that fails. */
function prepareFirst(req: Request, res: Response, next: NextFunction, mount: Mount) {
  const owner = registrationOf(req.app)?.app;
  if (owner === undefined) {
    throw new IdempotencyConfigError(
      IdempotencyErrorCode.notStarted,
      'a route requires an idempotency key but the app registered no guard: call addIdempotentKey(app) or addIdempotentKeyWithStore(app, store)',
    );
  }
  return prepareApp(owner).then(
    () => guardRequest(req, res, next, mount),
    (error: unknown) => refuseUnprepared(owner, req, res, error),
  );
}

/** 503 with `Retry-After` when the store did not start (it may come up), 500 when misconfigured. */
function refuseUnprepared(app: object, req: Request, res: Response, error: unknown): void {
  configuredLogger(app).error(
    { err: safeError(error), method: req.method, path: req.originalUrl },
    'idempotency: the app could not be prepared on its first request; the request was not served',
  );
  sendNotPrepared(
    res,
    error instanceof OptionsValidationError || error instanceof IdempotencyConfigError,
  );
}

/** One guarded request, as the guard hands it on once the store has answered. */
interface Guarded {
  readonly req: Request;
  readonly res: Response;
  readonly next: NextFunction;
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
    const recorder = startRecording(req, res, runtime, info, check.reservation, guarded.principal);
    refuseLaterCaller(req, guarded.principal, () => void recorder.release());
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
