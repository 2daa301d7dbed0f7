// `npm run demo`: generates a fresh app with the sample Product entity (docs/examples/product.yaml)
// in the git-ignored .demo/ folder, migrates it, seeds it unless SEED=0, and serves it on PORT.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addEntity, databaseOf, generateApp, productSpec, shopSpecs } from './generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// DEMO_DIR lets the end-to-end test run a demo without touching the one a developer has open.
const demoDir = resolve(process.env.DEMO_DIR ?? join(root, '.demo'));
const demo = process.env.DEMO || 'product';
if (demo !== 'product' && demo !== 'shop') {
  console.error(`demo: DEMO="${demo}" is not a demo; use product (the default) or shop`);
  process.exit(1);
}
const shop = demo === 'shop';
const appDir = join(demoDir, `${demo}-demo`);
const port = process.env.PORT || '3000';
const databaseUrl = process.env.DATABASE_URL || join(appDir, 'data', 'demo.sqlite');
const seed = process.env.SEED !== '0';

// The app runs from this checkout's TypeScript sources, runtime included, so the demo always shows
// the code as it is now; a published app runs the same files compiled.
const env = {
  ...process.env,
  PORT: port,
  DATABASE_URL: databaseUrl,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=slicekit-source`.trim(),
};
const tsx = ['--import', 'tsx'];

function step(script: string): void {
  const result = spawnSync(process.execPath, [...tsx, script], {
    cwd: appDir,
    env,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`demo: ${script} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

const shown = relative(process.cwd(), appDir) || '.';
const what = shop ? 'shop' : 'Product';
console.log(`demo: generating the ${what} app in ${shown} for ${databaseOf(databaseUrl)}`);
rmSync(appDir, { recursive: true, force: true });
await generateApp({ directory: appDir, name: `${demo}-demo`, database: databaseOf(databaseUrl) });
// Fixed migration names: a server database migrated by an earlier demo run stays usable.
await addEntity(appDir, shop ? shopSpecs : productSpec, { now: '2024-05-01T09:30:00Z' });
if (!shop) subscribeToProductCreated();

step('src/migrate.ts');
if (seed) step('src/seed.ts');

const server = spawn(process.execPath, [...tsx, 'src/server.ts'], {
  cwd: appDir,
  env: { ...env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code) => process.exit(code ?? 0));

const base = `http://localhost:${port}`;
await waitForServer(`${base}/v1/${shop ? 'customers' : 'products'}`);
if (shop) printShopBanner();
else
  console.log(`
demo: the Product API is up at ${base}/v1/products (database: ${databaseUrl})
Try:
  curl -s ${base}/v1/products
  curl -s -X POST ${base}/v1/products -H 'content-type: application/json' -d '{"name":"Desk lamp","price":24.99}'
  curl -s '${base}/v1/products?search=lamp&orderBy=price&desc=true&pageSize=5'
  curl -s -X PUT ${base}/v1/products/<id> -H 'content-type: application/json' -d '{"price":19.5}'
  curl -s -X POST ${base}/v1/products/<id>/approval -H 'content-type: application/json' -d '{"byUser":"alice"}'
  curl -s -X PUT ${base}/v1/products/<id>/discontinue
  curl -s -X DELETE -i ${base}/v1/products/<id>
Stop with Ctrl+C.`);

function printShopBanner(): void {
  const json = "-H 'content-type: application/json'";
  console.log(`
demo: the shop API is up at ${base}/v1/customers, /v1/orders, /v1/order-lines, /v1/tags (database: ${databaseUrl})
Try:
  curl -s -X POST ${base}/v1/customers ${json} -d '{"email":"ana@example.com","name":"Ana Souza"}'
  curl -s -X POST ${base}/v1/tags ${json} -d '{"name":"gift"}'
  curl -s -X POST ${base}/v1/orders ${json} -d '{"customerId":"<customer id>","note":"Wrap it","tagIds":["<tag id>"]}'
  curl -s -X POST ${base}/v1/order-lines ${json} -d '{"orderId":"<order id>","sku":"AB-1","quantity":2,"unitPrice":9.5}'
  curl -s '${base}/v1/orders?filter=customer.name:StartsWith:An&orderBy=customer.name'
  curl -s '${base}/v1/orders?filter=tags.name:Equal:gift&search=wrap'
  curl -s ${base}/v1/customers/<customer id>/orders
  curl -s ${base}/v1/orders/<order id>/lines
  curl -s -X POST ${base}/v1/orders/<order id>/place
  curl -s -X DELETE -i ${base}/v1/customers/<customer id>     (409 while it has orders)
Stop with Ctrl+C.`);
}

/**
 * The demo's one edit of the generated app, as a user would make it: a subscriber in
 * src/events.ts that logs each product created once its transaction has committed.
 */
function subscribeToProductCreated(): void {
  const file = join(appDir, 'src', 'events.ts');
  const text = readFileSync(file, 'utf8');
  const stub = /export function subscribe\(_bus: AppEventBus, _logger: Logger\): void \{\n[^}]*\}/;
  if (!stub.test(text)) throw new Error(`demo: ${file} has no subscribe() stub to fill in`);
  const subscriber = [
    'export function subscribe(bus: AppEventBus, logger: Logger): void {',
    "  bus.on('ProductCreated', (event) => logger.info(event.payload, 'product created'));",
    '}',
  ].join('\n');
  writeFileSync(file, text.replace(stub, subscriber));
}

async function waitForServer(url: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  console.error(`demo: the server did not answer at ${url} within 30 s`);
  server.kill();
  process.exit(1);
}
