// `npm run demo`: generates a fresh app with the sample Product entity (docs/examples/product.yaml),
// or the shop (DEMO=shop) or the secure shop (DEMO=shop-secure, scripts/demo-secure.ts), in the
// git-ignored .demo/ folder, migrates it, seeds it unless SEED=0, and serves it on PORT.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secureBanner, secureSetup } from './demo-secure.js';
import {
  addEntity,
  databaseOf,
  generateApp,
  productSpec,
  shopSecureSpecs,
  shopSpecs,
} from './generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// DEMO_DIR lets the end-to-end test run a demo without touching the one a developer has open.
const demoDir = resolve(process.env.DEMO_DIR ?? join(root, '.demo'));
const demo = process.env.DEMO || 'product';
if (demo !== 'product' && demo !== 'shop' && demo !== 'shop-secure') {
  console.error(
    `demo: DEMO="${demo}" is not a demo; use product (the default), shop or shop-secure`,
  );
  process.exit(1);
}
const secure = demo === 'shop-secure';
const shop = demo === 'shop' || secure;
// The secure shop's tokens: AUTH_JWT_SECRET (32 bytes or more), else a secret made for this run.
const security = secure ? secureSetup(process.env) : undefined;
const appDir = join(demoDir, `${demo}-demo`);
const port = process.env.PORT || '3000';
const databaseUrl = process.env.DATABASE_URL || join(appDir, 'data', 'demo.sqlite');
const seed = process.env.SEED !== '0';
// ADMIN_ENABLED=false: the app leaves /admin out (src/config.ts reads it), so it is not built either.
const admin = !/^(false|0|no|off)$/i.test(process.env.ADMIN_ENABLED?.trim() ?? '');

// The app runs from this checkout's TypeScript sources, runtime included, so the demo always shows
// the code as it is now; a published app runs the same files compiled.
const env = {
  ...process.env,
  ...security?.env,
  PORT: port,
  DATABASE_URL: databaseUrl,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=slicekit-source`.trim(),
};
const tsx = ['--import', 'tsx'];
const json = "-H 'content-type: application/json'";

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
const what = secure ? 'secure shop' : shop ? 'shop' : 'Product';
console.log(`demo: generating the ${what} app in ${shown} for ${databaseOf(databaseUrl)}`);
rmSync(appDir, { recursive: true, force: true });
await generateApp({ directory: appDir, name: `${demo}-demo`, database: databaseOf(databaseUrl) });
// Fixed migration names: a server database migrated by an earlier demo run stays usable.
const specs = secure ? shopSecureSpecs : shop ? shopSpecs : productSpec;
await addEntity(appDir, specs, { now: '2024-05-01T09:30:00Z' });
if (!shop) subscribeToProductCreated();

step('src/migrate.ts');
if (seed) step('src/seed.ts');
// The admin UI the app serves at /admin (dist/admin), built as `npm run build` builds it.
if (admin) step('admin/build.ts');

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
console.log(
  security
    ? await secureBanner(security, env, base, databaseUrl, adminLine(), firstRow)
    : shop
      ? await shopBanner()
      : await productBanner(),
);

/** Where the admin is, when the app serves it. */
function adminLine(): string {
  return admin ? `demo: the admin UI is at ${base}/admin\n` : '';
}

/**
 * The requests to try, on rows the database holds (the seeded ones, or those of an earlier run),
 * so each line can be pasted as it is; docs/getting-started.md shows these very lines, and
 * test/e2e/docs-examples.test.ts runs them.
 */
async function productBanner(): Promise<string> {
  const url = `${base}/v1/products`;
  const product = await firstRow<{ id: string }>('products');
  const id = product?.id ?? '<id>';
  return `
demo: the Product API is up at ${url} (database: ${databaseUrl})
${adminLine()}Try:
  curl -s ${url}
  curl -s -X POST ${url} ${json} -d '{"name":"Desk lamp","price":24.99}'
  curl -s '${url}?search=lamp&orderBy=price&desc=true&pageSize=5'
  curl -s -X PUT ${url}/${id} ${json} -d '{"price":19.5}'
  curl -s -X POST ${url}/${id}/approval ${json} -d '{"byUser":"alice"}'
  curl -s -X PUT ${url}/${id}/discontinue
  curl -s -X DELETE -i ${url}/${id}${product ? '' : `\n  ${noRows('a product')}`}
Stop with Ctrl+C.`;
}

async function shopBanner(): Promise<string> {
  interface Order {
    id: string;
    customer: { id: string; name: string } | null;
    tags: { id: string; name: string }[];
  }
  // A draft order, so that placing it is allowed, and its customer and first tag.
  const order =
    (await firstRow<Order>('orders', undefined, 'filter=status:Equal:draft')) ??
    (await firstRow<Order>('orders'));
  const customer = order?.customer ?? (await firstRow<{ id: string; name: string }>('customers'));
  const tag = order?.tags[0] ?? (await firstRow<{ id: string; name: string }>('tags'));
  const customerId = customer?.id ?? '<customer id>';
  const orderId = order?.id ?? '<order id>';
  const v1 = `${base}/v1`;
  const lines = [
    `curl -s -X POST ${v1}/customers ${json} -d '{"email":"ana@example.com","name":"Ana Souza"}'`,
    `curl -s -X POST ${v1}/tags ${json} -d '{"name":"gift"}'`,
    `curl -s -X POST ${v1}/orders ${json} -d '{"customerId":"${customerId}","note":"Wrap it","tagIds":["${tag?.id ?? '<tag id>'}"]}'`,
    `curl -s -X POST ${v1}/order-lines ${json} -d '{"orderId":"${orderId}","sku":"AB-1","quantity":2,"unitPrice":9.5}'`,
    `curl -s '${v1}/orders?filter=customer.name:StartsWith:${query(firstWord(customer?.name ?? 'An'))}&orderBy=customer.name'`,
    `curl -s '${v1}/orders?filter=tags.name:Equal:${query(tag?.name ?? 'gift')}&search=wrap'`,
    `curl -s ${v1}/customers/${customerId}/orders`,
    `curl -s ${v1}/orders/${orderId}/lines`,
    `curl -s -X POST ${v1}/orders/${orderId}/place`,
    `curl -s -X POST ${v1}/orders/${orderId}/place   # 409: an order is placed only from draft`,
    `curl -s -X DELETE -i ${v1}/customers/${customerId}   # 409: the customer has orders`,
  ];
  if (!order) lines.push(noRows('customers, tags and an order'));
  return `
demo: the shop API is up at ${v1}/customers, /v1/orders, /v1/order-lines, /v1/tags (database: ${databaseUrl})
${adminLine()}Try:
${lines.map((line) => `  ${line}`).join('\n')}
Stop with Ctrl+C.`;
}

/**
 * The first row of a list in its default order (newest first), or undefined when it is empty;
 * `token` is the bearer token of the caller asking, when the list needs one.
 */
async function firstRow<T>(
  resource: string,
  token?: string,
  filter?: string,
): Promise<T | undefined> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${base}/v1/${resource}?pageSize=1${filter ? `&${filter}` : ''}`, {
    headers,
  });
  if (!res.ok) return undefined;
  const page = (await res.json()) as { items?: T[] };
  return page.items?.[0];
}

function noRows(what: string): string {
  return `(the database holds no rows yet, as with SEED=0: create ${what} first and put the ids in)`;
}

function firstWord(text: string): string {
  return text.split(/\s+/)[0] || text;
}

/** A query-string value inside a single-quoted shell word. */
function query(value: string): string {
  return encodeURIComponent(value).replace(/'/g, '%27');
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
