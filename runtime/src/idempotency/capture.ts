// Records the handler's response for the key it reserved, whichever way Express writes it
// (res.json, res.send, res.sendStatus, res.end, res.write in chunks): every path ends in
// res.write/res.end, so those two are wrapped for this one response.
import type { Request, Response } from 'express';
import type { GuardRuntime } from './runtime.js';
import type { CachedResponse, IdempotentKeyInfo } from './store.js';

const CAPTURE = Symbol('slicekit.idempotency.capture');

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;

/** Lets the route's error layer release the reservation the moment the handler throws. */
interface Capture {
  fail(): void;
}

/** True when `status` is in the cacheable window or listed as an extra cacheable status. */
export function isCacheable(runtime: GuardRuntime, status: number): boolean {
  const { minStatusCodeForCaching: min, maxStatusCodeForCaching: max } = runtime.options;
  return (
    (status >= min && status <= max) || runtime.options.additionalCacheableStatusCodes.has(status)
  );
}

/** Called by the error layer appended to every guarded route. */
export function failCapture(req: Request): void {
  (req as Request & { [CAPTURE]?: Capture })[CAPTURE]?.fail();
}

/**
 * Wraps `res` so that the response is recorded (cacheable status) or the reservation released
 * (any other status, a thrown error, or a connection closed before the response ended).
 * The final `end` waits for the store, so a client that has the response and retries at once
 * finds the key completed (or free again), never still in flight.
 */
export function captureResponse(
  req: Request,
  res: Response,
  runtime: GuardRuntime,
  info: IdempotentKeyInfo,
  reservation: string,
): void {
  const { store, options } = runtime;
  const chunks: Buffer[] = [];
  let settled = false;
  let ended = false;
  let releasing: Promise<void> | undefined;
  const write = res.write;
  const end = res.end;

  const collect = (chunk: Chunk | null | undefined, encoding: unknown) => {
    if (chunk === null || chunk === undefined) return;
    chunks.push(
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
  };

  const logFailure = (error: unknown, what: string) =>
    options.logger.error(
      { err: error, idempotencyKey: info.safeKey, method: info.method, endpoint: info.endpoint },
      `idempotency: ${what} failed; the client still gets the handler's response`,
    );

  const release = (): Promise<void> => {
    settled = true;
    releasing = store.releaseReservation(info, reservation).catch((error: unknown) => {
      logFailure(error, 'releasing the reservation');
    });
    return releasing;
  };

  const record = (status: number): Promise<void> => {
    settled = true;
    const now = Date.now();
    const size = chunks.reduce((total, chunk) => total + chunk.length, 0);
    const contentType = res.getHeader('content-type');
    const response: CachedResponse = {
      statusCode: status,
      // Concatenating copies, so a handler reusing its buffer cannot change the cached bytes.
      body: size > 0 ? Buffer.concat(chunks, size) : null,
      contentType: contentType === undefined ? 'application/json' : String(contentType),
      createdAt: new Date(now),
      expiresAt: new Date(now + options.expirationMs),
    };
    return store.markKeyAsProcessed(info, response, reservation).then(
      (wrote) => {
        if (!wrote) {
          options.logger.warn(
            { idempotencyKey: info.safeKey, method: info.method, endpoint: info.endpoint },
            'idempotency: the reservation was reclaimed before the response was recorded',
          );
        }
      },
      (error: unknown) => logFailure(error, 'recording the response'),
    );
  };

  res.write = function captureWrite(this: Response, chunk: Chunk, ...rest: unknown[]) {
    collect(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Response['write'];

  res.end = function captureEnd(this: Response, ...args: unknown[]) {
    if (ended) return this;
    ended = true;
    let [chunk, encoding, callback] = args as [unknown, unknown, unknown];
    if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
    if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
    collect(chunk as Chunk | undefined, encoding);
    const status = this.statusCode;
    const pending = settled ? releasing : isCacheable(runtime, status) ? record(status) : release();
    const finish = () => {
      // A buggy handler may have changed the status after ending; send what was recorded.
      if (!this.headersSent) this.statusCode = status;
      const rest = encoding === undefined ? [] : [encoding];
      (end as (...a: unknown[]) => Response).call(this, chunk, ...rest, callback as Callback);
    };
    if (pending) void pending.then(finish);
    else finish();
    return this;
  } as Response['end'];

  (req as Request & { [CAPTURE]?: Capture })[CAPTURE] = {
    fail() {
      if (!settled) void release();
    },
  };
  // A client that disconnects before the handler answered: free the key for its retry.
  res.once('close', () => {
    if (!settled) void release();
  });
}
