// Records the handler's response for the key it reserved, whichever way Express writes it
// (res.json, res.send, res.sendStatus, res.end, res.write in chunks): every path ends in
// res.write/res.end, so those two are wrapped for this one response.
import type { Request, Response } from 'express';
import type { GuardRuntime } from './runtime.js';
import type { CachedResponse, IdempotentKeyInfo } from './store.js';

const RECORDER = Symbol('slicekit.idempotency.recorder');

type Chunk = string | Uint8Array;
type Write = (this: Response, ...args: unknown[]) => boolean;
type End = (this: Response, ...args: unknown[]) => Response;
type Recorded = Response & { [RECORDER]?: Recorder };

/** True when `status` is in the cacheable window or listed as an extra cacheable status. */
export function isCacheable(runtime: GuardRuntime, status: number): boolean {
  const { minStatusCodeForCaching: min, maxStatusCodeForCaching: max } = runtime.options;
  return (
    (status >= min && status <= max) || runtime.options.additionalCacheableStatusCodes.has(status)
  );
}

/**
 * Runs a store call so that a synchronous throw (a store that serializes before it returns its
 * promise) becomes a rejection: either way it is logged and the client still gets its response.
 */
function attempt<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * The state of one guarded response. The wrappers below are module-level functions that find it
 * on `res`, so guarding a request allocates this one object rather than a set of closures.
 */
class Recorder {
  readonly chunks: Buffer[] = [];
  /** Some chunk is a view of the caller's own buffer, so recording must copy. */
  borrowed = false;
  /** The reservation was completed or released; nothing more to do with the store. */
  settled = false;
  ended = false;
  releasing: Promise<void> | undefined;

  constructor(
    readonly runtime: GuardRuntime,
    readonly info: IdempotentKeyInfo,
    readonly reservation: string,
    readonly write: Write,
    readonly end: End,
  ) {}

  /**
   * Keeps a chunk as bytes. A string is encoded into a buffer the recorder owns; a caller's
   * buffer is only viewed here and copied when the response is recorded, in case the caller
   * reuses it.
   */
  collect(chunk: Chunk | null | undefined, encoding: unknown): void {
    if (chunk === null || chunk === undefined) return;
    let bytes: Buffer;
    if (typeof chunk === 'string') {
      bytes = Buffer.from(
        chunk,
        typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
      );
    } else {
      bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.borrowed = true;
    }
    this.chunks.push(bytes);
  }

  release(): Promise<void> {
    this.settled = true;
    this.releasing = attempt(() =>
      this.runtime.store.releaseReservation(this.info, this.reservation),
    ).catch((error: unknown) => this.logFailure(error, 'releasing the reservation'));
    return this.releasing;
  }

  record(status: number, contentType: unknown): Promise<void> {
    this.settled = true;
    return attempt(() => this.markProcessed(status, contentType)).then(
      (wrote) => {
        if (!wrote) this.warnReclaimed();
      },
      (error: unknown) => this.logFailure(error, 'recording the response'),
    );
  }

  private markProcessed(status: number, contentType: unknown): Promise<boolean> {
    const now = Date.now();
    let size = 0;
    for (const chunk of this.chunks) size += chunk.length;
    const response: CachedResponse = {
      statusCode: status,
      // One string chunk (res.send/res.json) is already a buffer of our own; anything else is
      // concatenated, which copies, so a handler reusing its buffer cannot change cached bytes.
      body:
        size === 0
          ? null
          : this.chunks.length === 1 && !this.borrowed
            ? this.chunks[0]!
            : Buffer.concat(this.chunks, size),
      contentType: contentType === undefined ? 'application/json' : String(contentType),
      createdAt: new Date(now),
      expiresAt: new Date(now + this.runtime.options.expirationMs),
    };
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
      { err: error, ...this.logFields() },
      `idempotency: ${what} failed; the client still gets the handler's response`,
    );
  }

  private logFields() {
    // The safe key only: the raw key may carry characters that forge log lines.
    const { safeKey, method, endpoint } = this.info;
    return { idempotencyKey: safeKey, method, endpoint };
  }
}

function captureWrite(this: Recorded, chunk: Chunk, ...rest: unknown[]): boolean {
  const recorder = this[RECORDER]!;
  recorder.collect(chunk, rest[0]);
  return recorder.write.call(this, chunk, ...rest);
}

/**
 * The final `end` waits for the store, so a client that has the response and retries at once
 * finds the key completed (or free again), never still in flight.
 */
function captureEnd(this: Recorded, ...args: unknown[]): Response {
  const recorder = this[RECORDER]!;
  if (recorder.ended) return this;
  recorder.ended = true;
  let [chunk, encoding, callback] = args;
  if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
  if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
  // The recorder keeps its own bytes; Node still gets the string, which it sends in one write
  // with the headers (a Buffer would take a second, vectored write).
  recorder.collect(chunk as Chunk | undefined, encoding);
  const status = this.statusCode;
  const pending = recorder.settled
    ? recorder.releasing
    : isCacheable(recorder.runtime, status)
      ? recorder.record(status, this.getHeader('content-type'))
      : recorder.release();
  const finish = () => {
    // A buggy handler may change the status after ending; send what was recorded.
    if (!this.headersSent) this.statusCode = status;
    if (encoding === undefined) recorder.end.call(this, chunk, callback);
    else recorder.end.call(this, chunk, encoding, callback);
  };
  if (pending) void pending.then(finish);
  else finish();
  return this;
}

/**
 * Wraps `res` so that the response is recorded (cacheable status) or the reservation released
 * (any other status, or a thrown error). A client that disconnects does not release the key: its
 * handler may still be running, and a retry must meet 409 until that handler's outcome is known
 * (or, if it never answers, until the in-flight timeout lets a retry reclaim the key).
 */
export function captureResponse(
  res: Response,
  runtime: GuardRuntime,
  info: IdempotentKeyInfo,
  reservation: string,
): void {
  const recorded = res as Recorded;
  recorded[RECORDER] = new Recorder(
    runtime,
    info,
    reservation,
    res.write as unknown as Write,
    res.end as unknown as End,
  );
  res.write = captureWrite as unknown as Response['write'];
  res.end = captureEnd as unknown as Response['end'];
}

/** Called by the error layer appended to every guarded route: a thrown error frees the key. */
export function failCapture(req: Request): void {
  const recorder = (req.res as Recorded | undefined)?.[RECORDER];
  if (recorder && !recorder.settled) void recorder.release();
}
