// Draining an HTTP server on shutdown: it keeps listening and answering while the requests in
// flight finish, then closes, with no keep-alive connection holding it open.
import type { Server, ServerResponse } from 'node:http';

/** Requests a server is answering, and its drain. */
export interface RequestTracker {
  /** Requests received and not yet answered (or abandoned by their client). */
  readonly inFlight: number;
  /** Set by `drain()`. */
  readonly draining: boolean;
  /**
   * Starts the drain: every response from now on carries `Connection: close`, so each client
   * connection ends after its answer; the server keeps accepting new requests until the ones in
   * flight when the drain began are answered, then stops listening, closes the idle connections
   * and resolves once the last connection ends. Calling it again returns the same drain.
   */
  drain(): Promise<void>;
}

/**
 * Tracks the requests `server` answers, from the first listener on, so the count includes a
 * request the app answers synchronously.
 *
 * @example
 * const requests = trackRequests(server);
 * process.once('SIGTERM', () => void requests.drain().then(cleanUp));
 */
export function trackRequests(server: Server): RequestTracker {
  const active = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  let drained: Promise<void> | undefined;

  const settle = () => {
    for (const waiter of waiters) waiter();
  };
  server.prependListener('request', (_req, res: ServerResponse) => {
    active.add(res);
    if (drained) res.setHeader('Connection', 'close');
    res.once('close', () => {
      active.delete(res);
      settle();
    });
  });

  /** Resolves once every response of `responses` has closed. */
  const finished = (responses: ReadonlySet<ServerResponse>) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if ([...responses].some((res) => active.has(res))) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });

  const drain = async () => {
    const inFlight = new Set(active);
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    await finished(inFlight);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A keep-alive connection between requests would hold close() until the client hangs up.
      server.closeIdleConnections();
    });
  };

  return {
    get inFlight() {
      return active.size;
    },
    get draining() {
      return drained !== undefined;
    },
    drain() {
      drained ??= drain();
      return drained;
    },
  };
}
