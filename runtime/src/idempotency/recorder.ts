// One guarded response's recorder: what the handler writes is kept, the final `end` is held until
// the store has the outcome, then the response goes on as the handler asked (capture.ts puts the
// recorder in front of every write).
import type { Response } from 'express';
import { safeError } from '../logging/safe-error.js';
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

export type Write = (
  this: Response,
  chunk: unknown,
  encoding?: unknown,
  callback?: unknown,
) => boolean;
export type End = (
  this: Response,
  chunk?: unknown,
  encoding?: unknown,
  callback?: unknown,
) => Response;
/** Where a recorded response goes on to: the `write` and `end` that were in place before. */
export interface Sink {
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

/** The state of one guarded response, kept on its request. */
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
