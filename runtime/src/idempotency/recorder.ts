// One guarded response's recorder: it wraps the `write` and `end` of that response object only
// (every way Express answers, res.json, res.send, res.sendStatus, res.end, res.write in chunks,
// ends in those two), keeps what the handler writes, holds the final `end` until the store has
// the outcome, then lets the response go on as the handler asked.
import type { Request, Response } from 'express';
import { principalId } from '../auth/user.js';
import { PROBLEM_CONTENT_TYPE, shapeProblem } from '../http/problem.js';
import { safeError } from '../logging/safe-error.js';
import { SCOPE_ORDER_FIX } from './scope-order.js';
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
import type { IdempotentKeyInfo, SynchronousKeyStore } from './store.js';

/** The `releasing` of a reservation the memory store released at once. */
const RELEASED: Promise<void> = Promise.resolve();

type Write = (
  this: Response,
  chunk: unknown,
  encoding?: unknown,
  callback?: unknown,
) => boolean;
type End = (
  this: Response,
  chunk?: unknown,
  encoding?: unknown,
  callback?: unknown,
) => Response;
/** Where a recorded response goes on to: the `write` and `end` that were in place before. */
interface Sink {
  readonly write: Write;
  readonly end: End;
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

/**
 * Replaces a response whose caller was authenticated after the guard resolved the scope (an
 * authentication that did not say so, see scope-order.ts) with a 500 naming the misconfiguration,
 * when its headers are not out yet.
 */
function lateCallerProblem(res: Response, runtime: GuardRuntime): unknown {
  const req = res.req as Request;
  const detail = `${req.method} ${req.originalUrl}: the caller was authenticated after the idempotency guard resolved its scope; ${SCOPE_ORDER_FIX}`;
  runtime.options.logger.error({ method: req.method, path: req.originalUrl }, detail);
  if (res.headersSent) return undefined;
  const body = JSON.stringify(shapeProblem({ title: '', status: 500, detail }, req.originalUrl));
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = 500;
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  return body;
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

const recorders = new WeakMap<object, Recorder>();

/** True once the guard has taken `req` in charge, so a request covered twice is guarded once. */
export function isGuarded(req: Request): boolean {
  return recorders.has(req);
}

/** The recorder of `req`, if the guard took it in charge. */
export function recorderOf(req: Request): Recorder | undefined {
  return recorders.get(req);
}

/**
 * Records the response to `req` (cacheable status) or releases the reservation (any other
 * status). A client that disconnects does not release the key: its handler may still be running,
 * and a retry must meet 409 until that handler's outcome is known (or, if it never answers, until
 * the in-flight timeout lets a retry reclaim the key). The recorder wraps the `write`/`end` the
 * response has when the guard runs, so behind a middleware that replaced them (compression) it
 * still records the handler's bytes.
 */
export function startRecording(
  req: Request,
  res: Response,
  runtime: GuardRuntime,
  info: IdempotentKeyInfo,
  reservation: string,
  principal: string | undefined,
): void {
  const recorder = new Recorder(runtime, info, reservation, principal, {
    write: res.write as Write,
    end: res.end as End,
  });
  recorders.set(req, recorder);
  res.write = function write(this: Response, ...args: unknown[]) {
    return recorder.write(this, args);
  } as Response['write'];
  res.end = function end(this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    return recorder.end(this, chunk, encoding, callback);
  } as Response['end'];
}

/** The state of one guarded response. */
export class Recorder {
  readonly chunks: Buffer[] = [];
  /** Some chunk is a view of the caller's own buffer, so recording must copy. */
  borrowed = false;
  /** The reservation was completed or released; nothing more to do with the store. */
  settled = false;
  ended = false;
  /** Node sent the header block as UTF-8 (see `headerBlockIsUtf8`), not as latin1. */
  utf8Header = false;
  releasing: Promise<void> | undefined;

  constructor(
    readonly runtime: GuardRuntime,
    readonly info: IdempotentKeyInfo,
    readonly reservation: string,
    /** The caller the scope was resolved for (`req.user.id`), to catch authentication after it. */
    readonly principal: string | undefined,
    /** The `write` and `end` the response had before the recorder wrapped them. */
    private readonly sink: Sink,
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
  write(res: Response, args: unknown[]): boolean {
    this.collect(args[0], args[1]);
    const first = !res.headersSent;
    const written = this.sink.write.apply(res, args as Parameters<Write>);
    if (first) this.utf8Header = headerBlockIsUtf8(args[0], args[1], res.chunkedEncoding);
    return written;
  }

  /**
   * The response's final `end`: it waits for the store, so a client that has the response and
   * retries at once finds the key completed (or free again), never still in flight.
   */
  end(res: Response, chunk: unknown, encoding: unknown, callback: unknown): Response {
    if (this.ended) return res;
    this.ended = true;
    const { sink } = this;
    if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
    if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
    if (!this.releasing && principalId(res.req as Request) !== this.principal) {
      // Authentication after the guard: nothing is kept under the scope of another caller.
      void this.release();
      [chunk, encoding] = [lateCallerProblem(res, this.runtime), undefined];
    }
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
    const memory = this.runtime.store.synchronous?.();
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
    const memory = this.runtime.store.synchronous?.();
    if (memory) {
      // A synchronous store (the memory store) records at once: the response goes out in this same call, as unguarded.
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
  private recordNow(memory: SynchronousKeyStore, { res, status }: Ending): boolean {
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
