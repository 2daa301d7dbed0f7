// Two app processes creating on one database at once, as a scaled-out app does: 200 concurrent
// creates of an entity with a declared Created event, split over both, all answer 201 (no 5xx,
// deadlocks included), and every product and every outbox row is stored once.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { outboxMigration } from '@slicekit/runtime/events';
import { describeEachDatabase } from '../../support/services.js';
import { createProductsTable } from '../../support/products-server.js';

const server = fileURLToPath(new URL('../../support/products-server.ts', import.meta.url));
const CREATES = 200;

/** Starts one app process on `url`; resolves to the port it listens on. */
function startProcess(
  dialect: string,
  url: string,
): { child: ChildProcess; port: Promise<number> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=slicekit-source', server, dialect, url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the app process exited (${code})`)));
  });
  return { child, port };
}

describeEachDatabase('concurrent creates from two app processes', (db) => {
  const children: ChildProcess[] = [];
  let ports: number[] = [];

  before(async function () {
    this.timeout(60_000);
    await createProductsTable(db.knex);
    await outboxMigration().up(db.knex);
    const started = [startProcess(db.dialect, db.url), startProcess(db.dialect, db.url)];
    children.push(...started.map((s) => s.child));
    ports = await Promise.all(started.map((s) => s.port));
  });

  after(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  });

  it(`answers 201 to all ${CREATES} and stores every product and event once`, async function () {
    this.timeout(120_000);
    const answers = await Promise.all(
      Array.from({ length: CREATES }, async (_, n) => {
        const res = await fetch(`http://127.0.0.1:${ports[n % 2]}/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `product ${n}`, price: n }),
        });
        return { status: res.status, body: await res.text() };
      }),
    );
    const failed = answers.filter((a) => a.status !== 201);
    expect(failed.slice(0, 3), `${failed.length} of ${CREATES} failed`).to.deep.equal([]);
    const products = await db.knex('products').pluck('id');
    const events = await db
      .knex('slicekit_outbox')
      .where({ name: 'ProductCreated' })
      .pluck('entity_id');
    expect(products).to.have.length(CREATES);
    expect(events).to.have.length(CREATES);
    expect([...events].sort()).to.deep.equal([...products].sort());
  });
});
