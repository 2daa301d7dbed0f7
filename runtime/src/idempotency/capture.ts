// Records the handler's response for the key it reserved, whichever way Express writes it
// (res.json, res.send, res.sendStatus, res.end, res.write in chunks): every path ends in
// res.write/res.end, so the recorder sits in front of those two.
import type { Request, Response } from 'express';
import { processWide } from '../process-state.js';
import { Recorder, type End, type Sink, type Write } from './recorder.js';
import type { GuardRuntime } from './runtime.js';
import type { IdempotentKeyInfo } from './store.js';

// A registered symbol and a process-wide map, so a copy of the runtime loaded twice in one process
// (see process-state.ts) finds the capturing prototype and the recorders of the other copy.
// Each guarded request's recorder is kept in a WeakMap rather than on the request: a property
// added to a request, or a symbol looked up along its prototype chain (seven objects deep under
// Express), costs several times a WeakMap lookup, and the recorder is looked up on every `write`
// and `end` of every response of a guarded app.
const recorders = processWide('idempotency.recorders', () => new WeakMap<object, Recorder>());
const CAPTURING = Symbol.for('@slicekit/runtime:idempotency.capturing');

type CapturingPrototype = Response & { [CAPTURING]?: Sink };
/**
 * What the recorder reads of an Express app (missing from its types): `response`, the prototype
 * Express gives every `res` of the app, and `parent`, the app a sub-app is mounted in.
 */
interface MountedApp {
  readonly response?: CapturingPrototype;
  readonly parent?: MountedApp;
}

/** The recorder of a response's request, if that request is guarded. */
function recorderOf(res: Response): Recorder | undefined {
  const req = res.req as Request | undefined;
  return req === undefined ? undefined : recorders.get(req);
}

/**
 * Puts recording `write` and `end` on an app's response prototype (`app.response`, Express's
 * place for extending every `res` of that app), once. They record only for a guarded request
 * and otherwise pass straight through. Recording from the prototype, rather than by assigning
 * `res.write`/`res.end` per request, keeps every `res` the same shape: adding own properties to
 * a response changes its hidden class, which measurably slows Node's and Express's whole write
 * path for that request.
 */
function captureThrough(proto: CapturingPrototype): void {
  if (Object.hasOwn(proto, CAPTURING)) return;
  const sink: Sink = { write: proto.write as Write, end: proto.end as End };
  // Arguments pass on exactly as given, so an unguarded response sees no difference.
  function write(this: Response, ...args: unknown[]) {
    const recorder = recorderOf(this);
    if (recorder !== undefined && recorder.ownSink === undefined) {
      return recorder.write(this, sink, args);
    }
    return sink.write.apply(this, args as Parameters<Write>);
  }
  function end(this: Response, ...args: unknown[]) {
    const recorder = recorderOf(this);
    if (recorder !== undefined && recorder.ownSink === undefined) {
      return recorder.end(this, sink, args[0], args[1], args[2]);
    }
    return sink.end.apply(this, args as Parameters<End>);
  }
  const method = { configurable: true, enumerable: false, writable: true };
  Object.defineProperties(proto, {
    write: { ...method, value: write },
    end: { ...method, value: end },
    [CAPTURING]: { value: sink },
  });
}

function ownWrite(this: Response, ...args: unknown[]) {
  const recorder = recorderOf(this)!;
  return recorder.write(this, recorder.ownSink!, args);
}

function ownEnd(this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown) {
  const recorder = recorderOf(this)!;
  return recorder.end(this, recorder.ownSink!, chunk, encoding, callback);
}

/**
 * Records the response to `req` (cacheable status) or releases the reservation (any other
 * status, or a thrown error). A client that disconnects does not release the key: its handler
 * may still be running, and a retry must meet 409 until that handler's outcome is known (or, if
 * it never answers, until the in-flight timeout lets a retry reclaim the key).
 *
 * The recorder sees what the handler writes. Usually the app's response prototype records; when
 * a middleware before the guard has replaced `res.write`/`res.end` (compression, say), the
 * recorder wraps those instead, so it still records the handler's bytes, not the middleware's.
 */
export function captureResponse(
  req: Request,
  res: Response,
  /** `req.app`, which the guard has read already. */
  app: Request['app'],
  runtime: GuardRuntime,
  info: IdempotentKeyInfo,
  reservation: string,
  principal: string | undefined,
): void {
  const recorder = new Recorder(runtime, info, reservation, principal);
  const mounted = app as unknown as MountedApp;
  const proto = mounted.response;
  const fromPrototype = proto !== undefined && Object.getPrototypeOf(res) === proto;
  if (fromPrototype) {
    // A sub-app's route may pass the request on to its parent app, where `res` takes the
    // parent's prototype: every app up the mount chain records.
    for (let each: MountedApp | undefined = mounted; each; each = each.parent) {
      if (each.response) captureThrough(each.response);
    }
  }
  // `res` is an instance of `proto` here, so only methods of its own replace the recording ones
  // (an own-property check is cheaper than reading both methods through the prototype chain).
  if (!fromPrototype || Object.hasOwn(res, 'write') || Object.hasOwn(res, 'end')) {
    recorder.ownSink = { write: res.write as Write, end: res.end as End };
    res.write = ownWrite as Response['write'];
    res.end = ownEnd as Response['end'];
  }
  recorders.set(req, recorder);
}

/** True once the guard has taken `req` in charge, so a route covered twice is guarded once. */
export function isCaptured(req: Request): boolean {
  return recorders.has(req);
}

/** What `principalAtGuard` answers for a request the guard did not take in charge. */
export const NOT_GUARDED: unique symbol = Symbol('not guarded');

/** The caller the guard resolved `req`'s scope for, or `NOT_GUARDED`. */
export function principalAtGuard(req: Request): string | undefined | typeof NOT_GUARDED {
  const recorder = recorders.get(req);
  return recorder ? recorder.principal : NOT_GUARDED;
}

/** Called by the error layer appended to every guarded route: a thrown error frees the key. */
export function failCapture(req: Request): void {
  const recorder = recorders.get(req);
  if (recorder && !recorder.settled) void recorder.release();
}
