// Three processes of one generated app folder behave as one, on PostgreSQL and on MySQL: started
// with `npm start` on their own ports with MIGRATE_ON_START=false behind a round-robin balancer,
// sharing the database, the idempotency store (the app's database) and a broker (NATS JetStream
// for one, RabbitMQ for the other) that the test can cut off through a TCP proxy.
import { expect } from 'chai';
import { sampleValue, scrape } from '../support/prometheus-text.js';
import { uniqueName, useDatabase } from '../support/services.js';
import { brokerUrls, requireBroker, type BrokerName } from '../support/brokers.js';
import { startCutProxy, type CutProxy } from '../support/cut-proxy.js';
import { eventReader, type BrokerMessage, type EventReader } from './support/broker-readers.js';
import { buildProductApp, replica, type Replica } from './support/replicas.js';
import {
  SERVED_BY,
  sendTo,
  sendToAny,
  startBalancer,
  type Balancer,
  type Call,
} from './support/round-robin.js';
import { scratchFolder } from './support/workspace.js';

const CREATES = 200;
const CONCURRENCY = 8;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls `read` until `done` holds of its value; the last value either way, within `timeoutMs`. */
async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(200);
    value = await read();
  }
  return value;
}

/** Whether two answers carry the same JSON body. */
const sameJson = (a: string, b: string) =>
  JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));

/** A latch the load and the rolling restart wait on. */
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open: () => open(), opened };
}

/** The state the readiness body gives the check `name` ('up', 'down'), if it lists it. */
function reported(text: string, name: string): string | undefined {
  const body = JSON.parse(text) as { checks?: { name: string; status: string }[] };
  return body.checks?.find((check) => check.name === name)?.status;
}

const setups: { dialect: 'postgres' | 'mysql'; broker: BrokerName }[] = [
  { dialect: 'postgres', broker: 'nats' },
  { dialect: 'mysql', broker: 'amqp' },
];

for (const { dialect, broker } of setups)
  describe(`three processes of one app on ${dialect}, events to ${broker}`, function () {
    this.timeout(60_000);
    let scratch: ReturnType<typeof scratchFolder> | undefined;
    let reader: EventReader | undefined;
    let gate: CutProxy | undefined;
    let balancer: Balancer | undefined;
    let replicas: Replica[] = [];
    const tag = uniqueName('scale');
    /** Product ids by creation, in the order their creates were sent. */
    const created: string[] = [];

    // Registered before the database's own hook so the processes stop before it is dropped.
    after(async () => {
      await balancer?.close();
      await Promise.all(replicas.map((r) => r.stop()));
      await gate?.close();
      await reader?.close();
      scratch?.remove();
    });
    const db = useDatabase(dialect);

    before(async function () {
      this.timeout(180_000);
      await requireBroker(this, broker);
      scratch = scratchFolder(`scale-${dialect}`);
      const app = await buildProductApp(scratch.path, dialect, db.url);
      reader = await eventReader(broker);
      gate = await startCutProxy(brokerUrls[broker]);
      const env = {
        DATABASE_URL: db.url,
        EVENTS_BROKER_URL: gate.proxied(brokerUrls[broker]),
        ...reader.settings,
      };
      replicas = [1, 2, 3].map(() => replica(app, env));
      await Promise.all(replicas.map((r) => r.start()));
      const ports = replicas.map((r) => r.port);
      balancer = await startBalancer(() => ports);
    });

    const createCall = (key: string, i: number): Call => ({
      method: 'POST',
      path: '/v1/products',
      headers: { 'content-type': 'application/json', 'x-idempotency-key': key },
      body: JSON.stringify({ name: `${tag} ${i}`, price: i + 0.25 }),
    });

    it('counts each process’s own requests at its own METRICS_PORT', async () => {
      const listed = (r: Replica) =>
        scrape(r.metricsPort).then((metrics) =>
          sampleValue(metrics, 'http_server_request_duration_seconds_count', {
            http_request_method: 'GET',
            http_route: '/v1/products',
            http_response_status_code: '200',
          }),
        );
      const before = await Promise.all(replicas.map(listed));
      for (let i = 0; i < 3; i++) {
        const answer = await sendTo(replicas[0]!.port, { method: 'GET', path: '/v1/products' });
        expect(answer.status, answer.text).to.equal(200);
      }
      const after = await Promise.all(replicas.map(listed));
      expect(after.map((count, i) => count - before[i]!)).to.deep.equal([3, 0, 0]);
    });

    it(`runs each of ${CREATES} creates once, retried on another process, through a rolling restart`, async () => {
      const restarted = replicas[1]!;
      const [draining, down, up] = [latch(), latch(), latch()];
      const failures: string[] = [];
      let next = 0;
      let finished = 0;

      // SIGTERM once 40 requests are sent, with more in flight; requests from #80 on are sent only
      // once the process is gone (the balancer must move those it picks for it), and it starts
      // again once 100 are answered; requests from #120 on wait for it.
      const restart = (async () => {
        await draining.opened;
        const code = await restarted.terminate();
        down.open();
        while (finished < 100) await sleep(20);
        await restarted.start();
        up.open();
        return code;
      })();
      restart.catch(() => {
        down.open();
        up.open();
      });

      const createTwice = async (i: number) => {
        const call = createCall(`${tag}-${i}`, i);
        const first = await sendTo(balancer!.port, call);
        if (first.status !== 201) {
          failures.push(`#${i} through the balancer: ${first.status} ${first.text}`);
          return;
        }
        const servedBy = Number(first.headers[SERVED_BY]);
        const others = replicas.map((r) => r.port).filter((port) => port !== servedBy);
        const again = await sendToAny(others, call);
        if (again.status !== 201 || !sameJson(again.text, first.text))
          failures.push(`#${i} retried on :${again.port}: ${again.status} ${again.text}`);
        created[i] = (JSON.parse(first.text) as { id: string }).id;
      };
      const worker = async () => {
        while (next < CREATES) {
          const i = next++;
          if (i === 40) draining.open();
          if (i >= 80) await down.opened;
          if (i >= 120) await up.opened;
          await createTwice(i).catch((error: Error) => failures.push(`#${i}: ${error.message}`));
          finished++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      expect(await restart, `exit code after SIGTERM\n${restarted.output()}`).to.equal(0);
      expect(failures.length, failures.slice(0, 3).join('\n')).to.equal(0);
      // The restart happened under load: the balancer found the process gone and moved requests.
      expect(balancer!.retries.length).to.be.greaterThan(0);
      expect(new Set(created).size).to.equal(CREATES);
      // The suite's own database: every row in the table is one of these creates.
      const rows = (await db.knex('products').select('id')) as { id: string }[];
      expect(rows.length, 'rows created').to.equal(CREATES);
      expect(rows.map((row) => row.id).sort()).to.deep.equal([...created].sort());
    });

    /** The `ProductCreated` messages on the broker, by product id. */
    const createdEvents = async () => {
      const byProduct = new Map<string, BrokerMessage[]>();
      for (const message of await reader!.messages()) {
        if (message.body.type !== 'ProductCreated') continue;
        const id = String(message.body.payload.id);
        byProduct.set(id, [...(byProduct.get(id) ?? []), message]);
      }
      return byProduct;
    };

    /** Every product in `ids` has its event on the broker, once (JetStream) or more, all alike. */
    const expectDelivered = async (ids: readonly string[]) => {
      const events = await eventually(createdEvents, (e) => ids.every((id) => e.has(id)), 30_000);
      const missing = ids.filter((id) => !events.has(id));
      expect(missing.length, `events missing, of ${ids.length}`).to.equal(0);
      const eventIds = new Set<string>();
      for (const id of ids) {
        const copies = events.get(id)!;
        if (broker === 'nats') expect(copies, `events of product ${id}`).to.have.length(1);
        // Copies of one event carry its id as their message id, and the same body.
        for (const copy of copies) {
          expect(copy.messageId).to.equal(copy.body.id);
          expect(copy.body).to.deep.equal(copies[0]!.body);
        }
        eventIds.add(copies[0]!.body.id);
      }
      expect(eventIds.size, 'one event id per product').to.equal(ids.length);
    };

    it(`puts every created product’s ProductCreated event on ${broker === 'nats' ? 'the JetStream stream exactly once' : 'the RabbitMQ queue at least once'}`, async () => {
      await expectDelivered(created);
    });

    it('keeps serving and ready through a broker outage, then delivers the backlog', async () => {
      gate!.cut();
      const during: string[] = [];
      try {
        for (let i = CREATES; i < CREATES + 20; i++) {
          const answer = await sendTo(balancer!.port, createCall(`${tag}-${i}`, i));
          expect(answer.status, answer.text).to.equal(201);
          during.push((JSON.parse(answer.text) as { id: string }).id);
        }
        for (const r of replicas) {
          const ready = await eventually(
            () => sendTo(r.port, { method: 'GET', path: '/health/ready' }),
            (answer) => answer.status !== 200 || reported(answer.text, 'broker') === 'down',
            15_000,
          );
          expect(ready.status, ready.text).to.equal(200);
          expect(reported(ready.text, 'broker'), ready.text).to.equal('down');
        }
        const events = await createdEvents();
        expect(during.filter((id) => events.has(id))).to.deep.equal([]);
      } finally {
        gate!.restore();
      }
      await expectDelivered([...created, ...during]);
      for (const r of replicas) {
        const ready = await eventually(
          () => sendTo(r.port, { method: 'GET', path: '/health/ready' }),
          (answer) => reported(answer.text, 'broker') === 'up',
          15_000,
        );
        expect(reported(ready.text, 'broker'), ready.text).to.equal('up');
      }
    });
  });
