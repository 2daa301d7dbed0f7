// The peers of the idempotency guard in bench:idempotency, on the same Express 5 echo and create
// handlers as slicekit's guard: @node-idempotency/core (memory adapter), @aws-lambda-powertools/
// idempotency (cache persistence layer over an in-process client), express-idempotency (with a Map
// adapter: its bundled in-memory adapter scans an array), a minimal guard as the floor (one Map, a
// wrapped res.send, 409 and replay, nothing else), and that minimal guard with slicekit's request
// fingerprint (`floor_fingerprint`: the floor with what the performance targets are stated with).
// Each reads the same x-idempotency-key header. Every peer is checked to deduplicate before it is
// measured.
import { createRequire } from 'node:module';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { fingerprintRequest } from '@slicekit/runtime/idempotency';

const require = createRequire(import.meta.url);

/** The peers, in the order they are measured and reported. */
export const PEERS = [
  'node_idempotency',
  'powertools',
  'express_idempotency',
  'floor',
  'floor_fingerprint',
] as const;
export type Peer = (typeof PEERS)[number];

/** What each peer protects: the two handlers of the benchmark, as plain functions of the body. */
export interface BenchHandlers {
  echo(body: Record<string, unknown>): Promise<unknown> | unknown;
  create(body: Record<string, unknown>): Promise<unknown>;
}

const KEY = 'x-idempotency-key';

/** @node-idempotency/core's documented onRequest/onResponse flow as Express middleware. */
function nodeIdempotency(): RequestHandler {
  const { Idempotency } =
    require('@node-idempotency/core') as typeof import('@node-idempotency/core');
  const { MemoryStorageAdapter } =
    require('@node-idempotency/storage-adapter-memory') as typeof import('@node-idempotency/storage-adapter-memory');
  const idempotency = new Idempotency(new MemoryStorageAdapter(), {
    idempotencyKey: KEY,
    enforceIdempotency: true,
  });
  return async function nodeIdempotencyMiddleware(req, res, next) {
    const params = { headers: req.headers, path: req.path, method: req.method, body: req.body };
    try {
      const cached = await idempotency.onRequest<unknown, unknown>(params);
      if (cached) {
        res.status(Number(cached.additional?.status ?? 200)).json(cached.body);
        return;
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      res.status(code === 'IDEMPOTENCY_FINGERPRINT_MISSMATCH' ? 422 : 409).end();
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      void idempotency.onResponse(params, { body, additional: { status: res.statusCode } });
      return json(body);
    };
    next();
  };
}

/** A Map standing in for Redis behind powertools' cache persistence layer (GET, SET EX NX, DEL). */
class InProcessCacheClient {
  private readonly values = new Map<string, { value: unknown; until: number }>();
  async get(name: string) {
    const entry = this.values.get(name);
    if (!entry || entry.until <= Date.now()) return null;
    return entry.value as string;
  }
  async set(name: string, value: unknown, options?: { EX?: number; NX?: boolean }) {
    const current = await this.get(name);
    if (options?.NX && current !== null) return null;
    this.values.set(name, { value, until: Date.now() + (options?.EX ?? 3600) * 1000 });
    return 'OK';
  }
  async del(keys: string[]) {
    let deleted = 0;
    for (const key of keys) if (this.values.delete(key)) deleted++;
    return deleted;
  }
}

/**
 * powertools' makeIdempotent around the handler's work, keyed by route and header. Without payload
 * validation: in 2.35.0 the cache layer drops the payload hash when it completes a record, so with
 * payloadValidationJmesPath every replay after completion fails validation (422 here).
 */
function powertools(work: (body: Record<string, unknown>) => unknown): RequestHandler {
  const { makeIdempotent, IdempotencyConfig } =
    require('@aws-lambda-powertools/idempotency') as typeof import('@aws-lambda-powertools/idempotency');
  const { CachePersistenceLayer } =
    require('@aws-lambda-powertools/idempotency/cache') as typeof import('@aws-lambda-powertools/idempotency/cache');
  const config = new IdempotencyConfig({ eventKeyJmesPath: '[route, key]' });
  // Outside Lambda it warns on every call unless given a context to read the time left from.
  config.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as never);
  const process = makeIdempotent(
    async (event: { key: string; route: string; body: Record<string, unknown> }) =>
      work(event.body),
    {
      persistenceStore: new CachePersistenceLayer({ client: new InProcessCacheClient() }),
      config,
    },
  );
  return async function powertoolsHandler(req, res) {
    const key = req.get(KEY);
    if (!key) return void res.status(400).end();
    try {
      res.status(201).json(await process({ key, route: req.path, body: req.body }));
    } catch (error) {
      const name = (error as Error).name;
      res.status(name === 'IdempotencyValidationError' ? 422 : 409).end();
    }
  };
}

/** express-idempotency's middleware with a Map adapter (its bundled one scans an array). */
function expressIdempotency(): { middleware: RequestHandler; isHit: (req: Request) => boolean } {
  const { idempotency, getSharedIdempotencyService } =
    require('express-idempotency') as typeof import('express-idempotency');
  const resources = new Map<string, { idempotencyKey: string }>();
  const dataAdapter = {
    async findByIdempotencyKey(key: string) {
      return resources.get(key) ?? null;
    },
    async create(resource: { idempotencyKey: string }) {
      if (resources.has(resource.idempotencyKey)) throw new Error('Duplicate');
      resources.set(resource.idempotencyKey, resource);
    },
    async update(resource: { idempotencyKey: string }) {
      resources.set(resource.idempotencyKey, resource);
    },
    async delete(key: string) {
      resources.delete(key);
    },
  };
  const middleware = idempotency({
    idempotencyKeyHeader: KEY,
    dataAdapter: dataAdapter as never,
  }) as RequestHandler;
  return { middleware, isHit: (req) => getSharedIdempotencyService().isHit(req) };
}

/**
 * The floor: one Map, a wrapped res.send, 409 while in flight, replay once done. With
 * `fingerprint`, it also keeps each key's request fingerprint (slicekit's default, canonical JSON
 * and SHA-256) and answers 422 to a key reused for a different request.
 */
function minimalGuard(fingerprint?: (req: Request) => string): RequestHandler {
  interface Entry {
    readonly fingerprint: string | undefined;
    readonly response?: { status: number; body: unknown };
  }
  const entries = new Map<string, Entry>();
  return function minimal(req: Request, res: Response, next: NextFunction) {
    const key = req.get(KEY);
    if (!key) return void res.status(400).end();
    const id = `${req.path}:${key}`;
    const entry = entries.get(id);
    const print = fingerprint?.(req);
    if (entry && entry.fingerprint !== print) return void res.status(422).end();
    if (entry?.response) return void res.status(entry.response.status).send(entry.response.body);
    if (entry) return void res.status(409).end();
    entries.set(id, { fingerprint: print });
    const send = res.send.bind(res);
    res.send = (body: unknown) => {
      entries.set(id, { fingerprint: print, response: { status: res.statusCode, body } });
      return send(body);
    };
    next();
  };
}

/**
 * Mounts each of `peers` (every peer by default) on `app` at /echo/<peer> and /orders/<peer>. The
 * handler answers as soon as its work does: at once for echo, as slicekit's guarded echo route
 * does, so no peer pays for a promise the unguarded route does not have.
 */
export function mountPeers(
  app: Express,
  handlers: BenchHandlers,
  peers: readonly Peer[] = PEERS,
): void {
  const answer =
    (work: (body: Record<string, unknown>) => unknown): RequestHandler =>
    (req, res) => {
      const result = work(req.body as Record<string, unknown>);
      if (!(result instanceof Promise)) return void res.status(201).json(result);
      return result.then((body) => void res.status(201).json(body));
    };
  const express = expressIdempotency();
  const node = nodeIdempotency();
  const floor = minimalGuard();
  const floorFingerprint = minimalGuard(fingerprintRequest);
  for (const [route, work] of [
    ['echo', handlers.echo],
    ['orders', handlers.create],
  ] as const) {
    if (peers.includes('node_idempotency')) {
      app.post(`/${route}/node_idempotency`, node, answer(work));
    }
    if (peers.includes('powertools')) app.post(`/${route}/powertools`, powertools(work));
    if (peers.includes('express_idempotency')) {
      app.post(`/${route}/express_idempotency`, express.middleware, (req, res, next) => {
        // express-idempotency answers a hit itself and still calls next: the handler must not run.
        if (express.isHit(req)) return;
        return answer(work)(req, res, next);
      });
    }
    if (peers.includes('floor')) app.post(`/${route}/floor`, floor, answer(work));
    if (peers.includes('floor_fingerprint')) {
      app.post(`/${route}/floor_fingerprint`, floorFingerprint, answer(work));
    }
  }
}

/**
 * Checks that a guarded route deduplicates: two requests with one key, one after the other, run
 * the handler once (the second is a replay or a 409), and a new key runs it again. `runs` reads
 * the server's handler-run count.
 */
export async function checkDeduplicates(
  base: string,
  path: string,
  body: string,
  runs: () => Promise<number>,
): Promise<void> {
  const send = (key: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [KEY]: key },
      body,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
  const key = `dedup-check${path.replaceAll('/', '-')}-${Date.now()}`;
  const before = await runs();
  const first = await send(key);
  const second = await send(key);
  const afterDuplicate = await runs();
  await send(`${key}-new`);
  const afterNew = await runs();
  const duplicateRan = afterDuplicate - before !== 1;
  if (first.status !== 201 || duplicateRan || afterNew - afterDuplicate !== 1) {
    throw new Error(
      `${path} does not deduplicate: first ${first.status}, duplicate ${second.status}, handler runs ${afterDuplicate - before} then ${afterNew - afterDuplicate}`,
    );
  }
  if (second.status === 201 && second.text !== first.text) {
    throw new Error(`${path} replays another body: ${second.text} instead of ${first.text}`);
  }
}
