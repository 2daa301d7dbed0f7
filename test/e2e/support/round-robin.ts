// A small round-robin load balancer for the scale-out test, and the plain HTTP call it and the test
// make: a request is retried on the next instance only when it could not be delivered (refused,
// or the connection dropped before any response), as a load balancer does; never after an answer.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as received (what the balancer passes on), and as UTF-8 text. */
  body: Buffer;
  text: string;
}

/** A request that never reached an instance or got nothing back: safe to send elsewhere. */
export class NotDelivered extends Error {
  constructor(
    readonly port: number,
    readonly code: string,
  ) {
    super(`127.0.0.1:${port} ${code}`);
  }
}

const undelivered = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * One request to 127.0.0.1:`port` on a fresh connection (no keep-alive, so a draining instance
 * never receives a request on a connection it is closing). Rejects with NotDelivered when the
 * connection was refused or dropped before the status line; any answer, 5xx included, resolves.
 */
export function sendTo(port: number, call: Call, timeoutMs = 15_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      { host: '127.0.0.1', port, method: call.method, path: call.path, agent: false },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: body.toString(),
          });
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer from :${port} in time`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered && error.code && undelivered.has(error.code))
        reject(new NotDelivered(port, error.code));
      else reject(error);
    });
    for (const [name, value] of Object.entries(call.headers ?? {})) req.setHeader(name, value);
    req.end(call.body);
  });
}

/**
 * Sends `call` to the first of `ports` that takes it; resolves with the answer and the port that
 * gave it. Rejects with the last NotDelivered when none did.
 */
export async function sendToAny(
  ports: readonly number[],
  call: Call,
  onRetry?: (error: NotDelivered) => void,
): Promise<Answer & { port: number }> {
  let last: NotDelivered | undefined;
  for (const port of ports) {
    try {
      return { ...(await sendTo(port, call)), port };
    } catch (error) {
      if (!(error instanceof NotDelivered)) throw error;
      last = error;
      onRetry?.(error);
    }
  }
  throw last ?? new Error('no instance to send to');
}

/** The header the balancer adds to each answer: the port of the instance that gave it. */
export const SERVED_BY = 'x-served-by';

export interface Balancer {
  readonly port: number;
  /** Requests retried on the next instance because one could not take them. */
  readonly retries: NotDelivered[];
  close(): Promise<void>;
}

/** Starts the balancer on a free port in front of `ports` (read at each request). */
export async function startBalancer(ports: () => readonly number[]): Promise<Balancer> {
  let next = 0;
  const retries: NotDelivered[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const all = ports();
      const start = next++ % all.length;
      const order = [...all.slice(start), ...all.slice(0, start)];
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && name !== 'connection' && name !== 'host')
          headers[name] = value;
      const call = { method: req.method ?? 'GET', path: req.url ?? '/', headers };
      sendToAny(order, { ...call, body: Buffer.concat(chunks) }, (error) => retries.push(error))
        .then((answer) => {
          const { connection: _c, 'transfer-encoding': _t, ...passed } = answer.headers;
          res.writeHead(answer.status, { ...passed, [SERVED_BY]: String(answer.port) });
          res.end(answer.body);
        })
        .catch((error: Error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`balancer: ${error.message}`);
        });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    retries,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
