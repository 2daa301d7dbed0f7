// One guarded response's recorder: it wraps the `write` and `end` of that response object only
// (every way Express answers, res.json, res.send, res.sendStatus, res.end, res.write in chunks,
// ends in those two), keeps what the handler writes, holds the final `end` until the store has
// the outcome, then lets the response go on as the handler asked.
import type { Request, Response } from 'express';
import { principalId } from '../auth/index.js';
import { safeError } from '../logging/index.js';
import type { GuardRuntime } from './registration.js';
import { attempt, headerBlockIsUtf8, isCacheable, isUtf8, recordedHeaders } from './recording.js';
import { lateCallerProblem } from './scope-order.js';
import type { IdempotentKeyInfo } from './store.js';

/** A response's final `end` call, held until the store has its outcome. */
interface Ending {
  readonly res: Response;
  readonly chunk: unknown;
  readonly encoding: unknown;
  readonly callback: unknown;
  /** The status recorded; a buggy handler may change it after ending. */
  readonly status: number;
}

const recorders = new WeakMap<object, Recorder>();

/** True once the guard has taken `req` in charge, so a request covered twice is guarded once. */
export function isGuarded(req: Request): boolean {
  return recorders.has(req);
}

/**
 * Records the response to `req` (cacheable status) or releases the reservation (any other
 * status). A client that disconnects does not release the key: its handler may still be running,
 * and a retry must meet 409 until that handler's outcome is known (or, if it never answers, until
 * the in-flight timeout lets a retry reclaim the key). The `write`/`end` wrapped are the ones the
 * response has when the guard runs, so behind a middleware that replaced them (compression) the
 * recorder still records the handler's bytes.
 */
export function startRecording(
  req: Request,
  res: Response,
  runtime: GuardRuntime,
  info: IdempotentKeyInfo,
  reservation: string,
  principal: string | undefined,
): Recorder {
  const recorder = new Recorder(runtime, info, reservation, principal, res);
  recorders.set(req, recorder);
  res.write = ((...args: unknown[]) => recorder.write(res, args)) as Response['write'];
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) =>
    recorder.end(res, chunk, encoding, callback)) as Response['end'];
  return recorder;
}

/** The state of one guarded response. */
export class Recorder {
  readonly chunks: Buffer[] = [];
  /** The one chunk so far when it is a UTF-8 string (`res.send`, `res.json`), kept as it is. */
  text: string | undefined = undefined;
  ended = false;
  /** Node sent the header block as UTF-8 (see `headerBlockIsUtf8`), not as latin1. */
  utf8Header = false;
  /** Set once the reservation is being released (it is then settled). */
  releasing: Promise<void> | undefined;
  private readonly write0: Response['write'];
  private readonly end0: Response['end'];

  constructor(
    readonly runtime: GuardRuntime,
    readonly info: IdempotentKeyInfo,
    readonly reservation: string,
    /** The caller the scope was resolved for (`req.user.id`), to catch authentication after it. */
    readonly principal: string | undefined,
    res: Response,
  ) {
    this.write0 = res.write;
    this.end0 = res.end;
  }

  /** Keeps a chunk: a first UTF-8 string as it is, a caller's buffer viewed (copied at the end). */
  collect(chunk: unknown, encoding: unknown): void {
    if (chunk === null || chunk === undefined || typeof chunk === 'function') return;
    if (this.text !== undefined) {
      this.chunks.push(Buffer.from(this.text, 'utf8'));
      this.text = undefined;
    } else if (typeof chunk === 'string' && this.chunks.length === 0 && isUtf8(encoding)) {
      this.text = chunk;
      return;
    }
    if (typeof chunk === 'string') {
      this.chunks.push(Buffer.from(chunk, isUtf8(encoding) ? 'utf8' : (encoding as never)));
    } else {
      const view = chunk as Uint8Array;
      this.chunks.push(Buffer.from(view.buffer, view.byteOffset, view.byteLength));
    }
  }

  /** A `write` of the handler: recorded, passed on, and noted if it sent the header block. */
  write(res: Response, args: unknown[]): boolean {
    this.collect(args[0], args[1]);
    const first = !res.headersSent;
    const written = this.write0.apply(res, args as never);
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
    if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
    if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
    if (!this.releasing && principalId(res.req as Request) !== this.principal) {
      // Authenticated after the guard: nothing is kept under the scope of another caller.
      void this.release();
      [chunk, encoding] = [lateCallerProblem(res, this.runtime.options.logger), undefined];
    }
    // Node still gets the string, which it sends in one write with the headers.
    this.collect(chunk, encoding);
    if (!res.headersSent) this.utf8Header = headerBlockIsUtf8(chunk, encoding, false);
    const ending: Ending = { res, chunk, encoding, callback, status: res.statusCode };
    if (!this.releasing && isCacheable(this.runtime, ending.status)) {
      this.record(ending);
    } else {
      const releasing = this.releasing ?? this.release();
      if (this.releasing === RELEASED) this.send(ending);
      else void releasing.then(() => this.send(ending));
    }
    return res;
  }

  /** Ends the response as the handler asked, with the status that was recorded. */
  private send({ res, chunk, encoding, callback, status }: Ending): void {
    if (res.statusCode !== status && !res.headersSent) res.statusCode = status;
    if (encoding === undefined) this.end0.call(res, chunk, callback as never);
    else this.end0.call(res, chunk, encoding as never, callback as never);
  }

  /** Frees the key: at once on a store with a synchronous core (then `releasing` is `RELEASED`). */
  release(): Promise<void> {
    if (this.releasing) return this.releasing;
    const { store } = this.runtime;
    const now = store.synchronous?.();
    if (now) {
      now.releaseNow(this.info, this.reservation);
      return (this.releasing = RELEASED);
    }
    return (this.releasing = attempt(() =>
      store.releaseReservation(this.info, this.reservation),
    ).catch((error: unknown) => this.logFailure(error, 'releasing the reservation')));
  }

  /**
   * Records the response, then sends it, whether or not the store took it. A store with a
   * synchronous core records at once: the response goes out in this same call, as unguarded.
   */
  private record(ending: Ending): void {
    this.releasing = RECORDED;
    const { runtime, info, reservation } = this;
    const { res, status } = ending;
    const at = Date.now();
    const deadline = at + runtime.options.expirationMs;
    const contentType = String(res.getHeader('content-type') ?? 'application/json');
    const headers = recordedHeaders(res, runtime.replayedHeaders, this.utf8Header);
    // One UTF-8 string (res.send, res.json) as it is: a synchronous core keeps the string. The
    // chunks are copied, so a handler reusing its buffer cannot change the recorded bytes.
    const body = this.text ?? Buffer.concat(this.chunks);
    const now = runtime.store.synchronous?.();
    const done = (wrote: boolean) => {
      const reclaimed =
        'idempotency: the reservation was reclaimed before the response was recorded';
      if (!wrote) runtime.options.logger.warn(this.logFields(), reclaimed);
      this.send(ending);
    };
    const failed = (error: unknown) => {
      this.logFailure(error, 'recording the response');
      this.send(ending);
    };
    if (now) {
      let wrote: boolean;
      try {
        wrote = now.completeNow(
          info,
          reservation,
          status,
          body.length > 0 ? body : null,
          contentType,
          headers,
          at,
          deadline,
        );
      } catch (error) {
        return failed(error);
      }
      return done(wrote);
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const response = {
      statusCode: status,
      body: bytes.length > 0 ? bytes : null,
      contentType,
      headers,
    };
    const dates = { createdAt: new Date(at), expiresAt: new Date(deadline) };
    void attempt(() =>
      runtime.store.markKeyAsProcessed(info, { ...response, ...dates }, reservation),
    ).then(done, failed);
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

/** The `releasing` of a reservation released at once by a store's synchronous core. */
const RELEASED: Promise<void> = Promise.resolve();
/** Marks a recorder whose response is being recorded: the store is no longer to be released. */
const RECORDED: Promise<void> = Promise.resolve();
