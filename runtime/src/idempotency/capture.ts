// Records the handler's response for the key it reserved, whichever way Express writes it
// (res.json, res.send, res.sendStatus, res.end, res.write in chunks): every path ends in
// res.write/res.end, so the recorder sits in front of those two.
import type { Request, Response } from 'express';
import { safeError } from '../logging/safe-error.js';
import { processWide } from '../process-state.js';
import type { GuardRuntime } from './runtime.js';
import {
  attempt,
  headerBlockIsUtf8,
  isCacheable,
  recordedBody,
  recordedContentType,
  recordedHeaders,
  recordedResponse,
} from './recording.js';
import type { IdempotentKeyInfo } from './store.js';
import { synchronousStore, type MemoryIdempotencyStore } from './stores/memory.js';

/** The `releasing` of a reservation the memory store released at once. */
const RELEASED: Promise<void> = Promise.resolve();

// A registered symbol and a process-wide map, so a copy of the runtime loaded twice in one process
// (see process-state.ts) finds the capturing prototype and the recorders of the other copy.
// Each guarded request's recorder is kept in a WeakMap rather than on the request: a property
// added to a request, or a symbol looked up along its prototype chain (seven objects deep under
// Express), costs several times a WeakMap lookup, and the recorder is looked up on every `write`
// and `end` of every response of a guarded app.
const recorders = processWide('idempotency.recorders', () => new WeakMap<object, Recorder>());
const CAPTURING = Symbol.for('@slicekit/runtime:idempotency.capturing');

type Write = (this: Response, chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;
type End = (this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown) => Response;
/** Where a recorded response goes on to: the `write` and `end` that were in place before. */
interface Sink {
  readonly write: Write;
  readonly end: End;
}
type CapturingPrototype = Response & { [CAPTURING]?: Sink };
/**
 * What the recorder reads of an Express app (missing from its types): `response`, the prototype
 * Express gives every `res` of the app, and `parent`, the app a sub-app is mounted in.
 */
interface MountedApp {
  readonly response?: CapturingPrototype;
  readonly parent?: MountedApp;
}

/** A response's final `end` call, held until the store has its outcome. */
interface Ending {
  readonly res: Response;
  readonly sink: Sink;
  readonly chunk: unknown;
  readonly encoding: unknown;
  readonly callback: unknown;
  /** The status recorded; a buggy handler may change it after ending. */
  readonly status: number;
}

/** Ends the response as the handler asked, with the status that was recorded. */
function send({ res, sink, chunk, encoding, callback, status }: Ending): void {
  if (res.statusCode !== status && !res.headersSent) res.statusCode = status;
  if (encoding === undefined) sink.end.call(res, chunk, callback);
  else sink.end.call(res, chunk, encoding, callback);
}

/** True for the encodings Node writes a string in as UTF-8 (none given means UTF-8). */
function isUtf8Name(encoding: unknown): boolean {
  return encoding === undefined || encoding === 'utf8' || encoding === 'utf-8';
}

/** The recorder of a response's request, if that request is guarded. */
function recorderOf(res: Response): Recorder | undefined {
  const req = res.req as Request | undefined;
  return req === undefined ? undefined : recorders.get(req);
}

/** The state of one guarded response, kept on its request. */
class Recorder {
  readonly chunks: Buffer[] = [];
  /** Some chunk is a view of the caller's own buffer, so recording must copy. */
  borrowed = false;
  /** The reservation was completed or released; nothing more to do with the store. */
  settled = false;
  ended = false;
  /** Node sent the header block as UTF-8 (see `headerBlockIsUtf8`), not as latin1. */
  utf8Header = false;
  releasing: Promise<void> | undefined;
  /**
   * Set when the recorder wraps this response's own `write`/`end` (another middleware had
   * replaced them before the guard ran); unset when the app's response prototype records.
   */
  ownSink: Sink | undefined;

  constructor(
    readonly runtime: GuardRuntime,
    readonly info: IdempotentKeyInfo,
    readonly reservation: string,
    /** The caller the scope was resolved for (`req.user.id`), to catch authentication after it. */
    readonly principal: string | undefined,
  ) {}

  /**
   * The response's one chunk so far when it is a UTF-8 string (`res.send`, `res.json`): kept as
   * the string, which the memory store keeps as it is, and encoded only when bytes are needed.
   */
  text: string | undefined = undefined;

  /**
   * Keeps a chunk as bytes. A first UTF-8 string is kept as it is (`text`); any other string is
   * encoded into a buffer the recorder owns; a caller's buffer is only viewed here and copied
   * when the response is recorded, in case the caller reuses it.
   */
  collect(chunk: unknown, encoding: unknown): void {
    if (chunk === null || chunk === undefined || typeof chunk === 'function') return;
    if (this.text !== undefined) {
      this.chunks.push(Buffer.from(this.text, 'utf8'));
      this.text = undefined;
    } else if (typeof chunk === 'string' && this.chunks.length === 0 && isUtf8Name(encoding)) {
      this.text = chunk;
      return;
    }
    let bytes: Buffer;
    if (typeof chunk === 'string') {
      bytes = Buffer.from(
        chunk,
        typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
      );
    } else {
      const view = chunk as Uint8Array;
      bytes = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
      this.borrowed = true;
    }
    this.chunks.push(bytes);
  }

  /** A `write` of the handler: recorded, passed on, and noted if it sent the header block. */
  write(res: Response, sink: Sink, args: unknown[]): boolean {
    this.collect(args[0], args[1]);
    const first = !res.headersSent;
    const written = sink.write.apply(res, args as Parameters<Write>);
    if (first) this.utf8Header = headerBlockIsUtf8(args[0], args[1], res.chunkedEncoding);
    return written;
  }

  /**
   * The response's final `end`: it waits for the store, so a client that has the response and
   * retries at once finds the key completed (or free again), never still in flight.
   */
  end(res: Response, sink: Sink, chunk: unknown, encoding: unknown, callback: unknown): Response {
    if (this.ended) return res;
    this.ended = true;
    if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
    if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
    // The recorder keeps its own bytes; Node still gets the string, which it sends in one write
    // with the headers (a Buffer would take a second, vectored write).
    this.collect(chunk, encoding);
    if (!res.headersSent) this.utf8Header = headerBlockIsUtf8(chunk, encoding, false);
    const ending: Ending = { res, sink, chunk, encoding, callback, status: res.statusCode };
    if (this.releasing) {
      // Released already (the handler threw before ending): send once the release is done.
      this.afterRelease(ending);
    } else if (isCacheable(this.runtime, ending.status)) {
      this.record(ending);
    } else {
      void this.release();
      this.afterRelease(ending);
    }
    return res;
  }

  /** Sends once the reservation is released: at once when the memory store released it. */
  private afterRelease(ending: Ending): void {
    if (this.releasing === RELEASED) send(ending);
    else void this.releasing!.then(() => send(ending));
  }

  release(): Promise<void> {
    this.settled = true;
    const memory = synchronousStore(this.runtime.store);
    if (memory) {
      memory.releaseNow(this.info, this.reservation);
      this.releasing = RELEASED;
    } else {
      this.releasing = attempt(() =>
        this.runtime.store.releaseReservation(this.info, this.reservation),
      ).catch((error: unknown) => this.logFailure(error, 'releasing the reservation'));
    }
    return this.releasing;
  }

  /** Records the response, then sends it, whether or not the store took it. */
  private record(ending: Ending): void {
    this.settled = true;
    const memory = synchronousStore(this.runtime.store);
    if (memory) {
      // The memory store records at once: the response goes out in this same call, as unguarded.
      let wrote = false;
      try {
        wrote = this.recordNow(memory, ending);
      } catch (error) {
        this.logFailure(error, 'recording the response');
        return send(ending);
      }
      if (!wrote) this.warnReclaimed();
      return send(ending);
    }
    void attempt(() => this.markProcessed(ending.res, ending.status)).then(
      (wrote) => {
        if (!wrote) this.warnReclaimed();
        send(ending);
      },
      (error: unknown) => {
        this.logFailure(error, 'recording the response');
        send(ending);
      },
    );
  }

  /** What `markProcessed` does, on the memory store, without the promise and the `Date`s. */
  private recordNow(memory: MemoryIdempotencyStore, { res, status }: Ending): boolean {
    const now = Date.now();
    return memory.completeNow(
      this.info,
      this.reservation,
      status,
      this.text === undefined
        ? recordedBody(this.chunks, this.borrowed)
        : this.text.length > 0
          ? this.text
          : null,
      recordedContentType(res),
      recordedHeaders(res, this.runtime.replayedHeaders, this.utf8Header),
      now,
      now + this.runtime.options.expirationMs,
    );
  }

  private markProcessed(res: Response, status: number): Promise<boolean> {
    const { options } = this.runtime;
    const response = recordedResponse(
      res,
      this.text === undefined
        ? this
        : { chunks: [Buffer.from(this.text, 'utf8')], borrowed: false },
      status,
      options.expirationMs,
      this.runtime.replayedHeaders,
      this.utf8Header,
    );
    return this.runtime.store.markKeyAsProcessed(this.info, response, this.reservation);
  }

  private warnReclaimed(): void {
    this.runtime.options.logger.warn(
      this.logFields(),
      'idempotency: the reservation was reclaimed before the response was recorded',
    );
  }

  private logFailure(error: unknown, what: string): void {
    this.runtime.options.logger.error(
      { err: safeError(error), ...this.logFields() },
      `idempotency: ${what} failed; the client still gets the handler's response`,
    );
  }

  private logFields() {
    // The safe key only: the raw key may carry characters that forge log lines.
    const { safeKey, method, endpoint } = this.info;
    return { idempotencyKey: safeKey, method, endpoint };
  }
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
