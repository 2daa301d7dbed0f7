// Several app processes sharing one store behave as one guard: a key runs its handler once across
// processes, a crashed holder's key is retried after the in-flight timeout, and a silent store
// fails requests with 500 quickly, then serves again, without restarting the process.
import { expect } from 'chai';
import { createIdempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import {
  useDatabase,
  useRedis,
  type DatabaseHandle,
  type RedisHandle,
} from '../../support/services.js';
import { startAppProcess, type AppProcess } from './support/app-process.js';
import { TcpProxy } from './support/tcp-proxy.js';

type Kind = 'postgres' | 'mysql' | 'redis';

async function post(app: AppProcess, key: string, body: object = {}): Promise<number> {
  const response = await fetch(`${app.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-idempotency-key': key },
    body: JSON.stringify(body),
    // A hung request fails the test instead of hanging it.
    signal: AbortSignal.timeout(20_000),
  });
  await response.arrayBuffer();
  return response.status;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of ['postgres', 'mysql', 'redis'] as Kind[]) {
  describe(`app processes sharing the ${kind} store`, function () {
    this.timeout(60_000);
    const side = useDatabase('postgres');
    const storeDb: DatabaseHandle | undefined =
      kind === 'mysql' ? useDatabase('mysql') : kind === 'postgres' ? side : undefined;
    const redis: RedisHandle | undefined = kind === 'redis' ? useRedis() : undefined;
    const apps: AppProcess[] = [];
    let proxy: TcpProxy;
    let pair: [AppProcess, AppProcess];
    let killable: AppProcess;
    let behindProxy: AppProcess;

    const sideEffects = async (key: string) => {
      const [row] = await side.knex('side_effects').where({ idem_key: key }).count({ n: '*' });
      return Number(row?.n);
    };

    before(async function () {
      this.timeout(60_000);
      await side.knex.schema.createTable('side_effects', (table) => {
        table.increments('id');
        table.string('idem_key').notNullable();
        table.integer('pid').notNullable();
      });
      if (storeDb) await createIdempotencyKeysMigration().up(storeDb.knex);
      const storeUrl = storeDb?.url ?? redis!.url;
      const target = new URL(storeUrl);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
      const base = {
        STORE: kind,
        STORE_URL: storeUrl,
        SIDE_DB_URL: side.url,
        CACHE_PREFIX: redis ? `${redis.prefix}shared` : 'shared',
        IN_FLIGHT_MS: '30000',
        OPERATION_TIMEOUT_MS: '10000',
      };
      const started = await Promise.all([
        startAppProcess(base),
        startAppProcess(base),
        startAppProcess({ ...base, IN_FLIGHT_MS: '3000' }),
        startAppProcess({ ...base, STORE_URL: proxy.url(storeUrl), OPERATION_TIMEOUT_MS: '500' }),
      ]);
      apps.push(...started);
      [pair, killable, behindProxy] = [[started[0]!, started[1]!], started[2]!, started[3]!];
    });

    after(async () => {
      proxy?.resume();
      await Promise.all(apps.map((app) => app.stop()));
      await proxy?.close();
    });

    it('runs the handler exactly once for 50 concurrent requests split across two processes, over 10 rounds', async () => {
      for (let round = 0; round < 10; round++) {
        const key = `race-${round}`;
        const statuses = await Promise.all(
          Array.from({ length: 50 }, (_, i) => post(pair[i % 2]!, key, { delayMs: 20 })),
        );
        expect(
          statuses.filter((status) => status === 201),
          `round ${round}`,
        ).to.have.length(1);
        expect(
          statuses.filter((status) => status === 409),
          `round ${round}`,
        ).to.have.length(49);
        expect(await sideEffects(key), `side effects in round ${round}`).to.equal(1);
      }
    });

    it('answers 409 while a SIGKILLed handler’s reservation is live, then runs the handler once more', async () => {
      const key = 'killed-mid-request';
      const reservedAt = Date.now();
      const hanging = post(killable, key, { delayMs: 60_000 }).catch(() => 'killed');
      while ((await sideEffects(key)) === 0) await sleep(20);
      // The reservation was made after `reservedAt` and before its handler's side effect showed.
      const reservedBy = Date.now();
      killable.child.kill('SIGKILL');
      expect(await hanging).to.equal('killed');

      // Within the killed process's in-flight timeout (3 s): both survivors refuse the key (the
      // retries repeat the request, so they are duplicates, not a reused key).
      expect(await post(pair[0], key, { delayMs: 60_000 })).to.equal(409);
      expect(await post(pair[1], key, { delayMs: 60_000 })).to.equal(409);
      expect(Date.now() - reservedAt, 'the 409s came within the timeout').to.be.below(3000);

      // After it: many concurrent retries across both processes, and exactly one runs the handler.
      await sleep(Math.max(0, reservedBy + 3000 + 200 - Date.now()));
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(pair[i % 2]!, key, { delayMs: 20 })),
      );
      expect(statuses.filter((status) => status === 201)).to.have.length(1);
      expect(statuses.filter((status) => status === 409)).to.have.length(19);
      expect(await sideEffects(key)).to.equal(2);
      expect(await post(pair[0], key, { delayMs: 20 })).to.equal(409);
    });

    it('fails requests with 500 while the store is silent, and serves again once it answers', async () => {
      expect(await post(behindProxy, 'before-outage')).to.equal(201);
      proxy.pause();
      try {
        // The process's timeouts are 500 ms (on PostgreSQL the client waits a second more for
        // the server to cancel first): each request fails soon after, never hangs.
        for (const key of ['during-outage', 'during-outage-again']) {
          const started = Date.now();
          expect(await post(behindProxy, key)).to.equal(500);
          expect(Date.now() - started, `${key} answered within the bound`).to.be.below(2500);
        }
      } finally {
        proxy.resume();
      }
      expect(await sideEffects('during-outage')).to.equal(0);
      expect(await sideEffects('during-outage-again')).to.equal(0);
      expect(await post(behindProxy, 'after-outage')).to.equal(201);
      expect(await sideEffects('after-outage')).to.equal(1);
    });
  });
}
