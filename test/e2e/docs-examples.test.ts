// The documented examples are what the demo answers: every `curl` line and `http` request of
// README.md and docs/ runs, in page order, against `npm run demo` (the Product demo for
// /v1/products, DEMO=shop for the shop's routes), seeded once per database, on SQLite, PostgreSQL
// and MySQL, and the JSON block after a request must be its answer. docs/testing.md states the
// conventions.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { allDialects, useDatabase, type Dialect } from '../support/services.js';
import { bannerLines, startDemo } from './support/demo.js';
import {
  differences,
  parseDocPage,
  type DocBlock,
  type DocPage,
  type DocRequest,
} from './support/doc-examples.js';
import type { Served } from './support/processes.js';
import { repoRoot, scratchFolder } from './support/workspace.js';

type DemoName = 'product' | 'shop';

const SHOP_RESOURCES = new Set(['customers', 'orders', 'order-lines', 'tags']);
const DEMO_COMMANDS: Record<string, DemoName> = {
  'npm run demo': 'product',
  'DEMO=shop npm run demo': 'shop',
};
const DEMO_ENV: Record<DemoName, NodeJS.ProcessEnv> = { product: {}, shop: { DEMO: 'shop' } };

/** Which demo serves a documented request: the one whose resources its path names. */
function demoOf(target: string): DemoName | undefined {
  const resource = /^\/v1\/([\w-]+)/.exec(target)?.[1];
  if (resource === 'products') return 'product';
  return resource && SHOP_RESOURCES.has(resource) ? 'shop' : undefined;
}

function markdownFiles(): string[] {
  const docs = join(repoRoot, 'docs');
  const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docs, name));
  return [join(repoRoot, 'README.md'), ...pages.sort()];
}

const pages: DocPage[] = markdownFiles().map((path) =>
  parseDocPage(relative(repoRoot, path), readFileSync(path, 'utf8')),
);

/** What a page asks of each demo: its requests in page order and the banners it shows. */
interface DemoPart {
  readonly requests: { request: DocRequest; block: DocBlock }[];
  readonly banners: DocBlock[];
}

function partsOf(page: DocPage): Map<DemoName, DemoPart> {
  const parts = new Map<DemoName, DemoPart>();
  const part = (demo: DemoName): DemoPart => {
    let found = parts.get(demo);
    if (!found) parts.set(demo, (found = { requests: [], banners: [] }));
    return found;
  };
  for (const block of page.blocks) {
    const printer = block.printedBy === undefined ? undefined : DEMO_COMMANDS[block.printedBy];
    if (printer) part(printer).banners.push(block);
    for (const request of block.requests) {
      const demo = demoOf(request.target);
      if (demo) part(demo).requests.push({ request, block });
    }
  }
  return parts;
}

/** Sends documented requests, filling `<customer id>`-style placeholders from earlier creates. */
class Session {
  private readonly ids = new Map<string, string>();

  constructor(private readonly demo: () => Served) {}

  async send(request: DocRequest): Promise<{ status: number; text: string; json?: unknown }> {
    const target = this.fill(request.target);
    const res = await fetch(this.demo().url + target, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: this.fill(request.body) }),
      redirect: 'manual',
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const created = /^\/v1\/([\w-]+)$/.exec(target)?.[1];
    const id = (json as { id?: unknown } | undefined)?.id;
    if (res.status === 201 && created && typeof id === 'string') {
      this.ids.set(`${created.replace(/s$/, '').replaceAll('-', ' ')} id`, id);
      this.ids.set('id', id);
    }
    return { status: res.status, text, ...(json === undefined ? {} : { json }) };
  }

  /** `<order id>` is the id of the last order a documented request created; `<id>` of any row. */
  private fill(text: string): string {
    return text.replace(/<((?:[a-z]+ )*id)>/g, (whole, name: string) => {
      const id = this.ids.get(name);
      if (!id) throw new Error(`${whole} names no row an earlier example on the page created`);
      return id;
    });
  }
}

async function check(session: Session, request: DocRequest, block?: DocBlock): Promise<void> {
  const answer = await session.send(request);
  const said = `${request.method} ${request.target} answered ${answer.status}: ${answer.text.slice(0, 3000)}`;
  if (request.status) expect(answer.status, said).to.equal(request.status);
  else
    expect(answer.status, `${said}\n(a line expecting another status says so: # 409)`).to.be.within(
      200,
      299,
    );
  const documented = block?.response;
  if (!documented) return;
  let expected: unknown;
  try {
    expected = JSON.parse(documented.text);
  } catch (error) {
    throw new Error(`${block.file}:${documented.line} is not JSON: ${(error as Error).message}`);
  }
  const diffs = differences(expected, answer.json);
  expect(
    diffs,
    `${block.file}:${documented.line} documents another answer to ${request.method} ${request.target}; the demo answered:\n${JSON.stringify(answer.json, null, 2)}\n`,
  ).to.deep.equal([]);
}

function title(request: DocRequest, file: string): string {
  const text = request.source.replace(/^curl -s /, '').replace(/(https?:\/\/)?localhost:3000/, '');
  return `${file}:${request.line} ${text.length > 110 ? `${text.slice(0, 110)}…` : text}`;
}

/** One freshly seeded demo on its own database, for the suite it is declared in. */
function useDemo(name: DemoName, dialect: Dialect): () => Served {
  const db = useDatabase(dialect);
  let scratch: ReturnType<typeof scratchFolder> | undefined;
  let demo: Served | undefined;
  before(async () => {
    scratch = scratchFolder(`docs-${name}-${dialect}`);
    demo = await startDemo({ ...DEMO_ENV[name], DEMO_DIR: scratch.path, DATABASE_URL: db.url });
  });
  after(async () => {
    await demo?.stop();
    scratch?.remove();
  });
  return () => {
    if (!demo) throw new Error('the demo has not started');
    return demo;
  };
}

describe('documented examples', function () {
  this.timeout(180_000);

  it('are each a request one of the demos serves, or say why not', () => {
    const problems = pages.flatMap((page) => [
      ...page.problems,
      ...page.blocks.flatMap((block) => [
        ...block.requests
          .filter((request) => !demoOf(request.target))
          .map((r) => `${page.file}:${r.line}: no demo serves ${r.method} ${r.target}`),
        ...(block.printedBy !== undefined && !DEMO_COMMANDS[block.printedBy]
          ? [`${page.file}:${block.line}: "${block.printedBy}" is not a demo command`]
          : []),
      ]),
    ]);
    expect(
      problems,
      'mark an example no demo can answer with <!-- not checked: the reason --> above its block',
    ).to.deep.equal([]);
  });

  for (const dialect of allDialects) {
    describe(`on ${dialect}`, () => {
      // One demo of each kind per database, its pages run in page order: what a reader does after
      // reading one page is what the next page starts from.
      const demos = { product: useDemo('product', dialect), shop: useDemo('shop', dialect) };
      for (const page of pages) {
        for (const [name, part] of partsOf(page)) {
          describe(`${page.file}, on the ${name} demo (${dialect})`, () => {
            const demo = demos[name];
            const session = new Session(demo);
            for (const block of part.banners) {
              it(`${page.file}:${block.line} shows the very lines ${block.printedBy} prints`, () => {
                const port = new URL(demo().url).port;
                expect(block.commands).to.deep.equal(bannerLines(demo().output(), port));
              });
            }
            for (const { request, block } of part.requests) {
              const last = block.requests.at(-1) === request;
              it(title(request, page.file), () =>
                check(session, request, last ? block : undefined),
              );
            }
          });
        }
      }

      for (const [command, name] of Object.entries(DEMO_COMMANDS)) {
        const shown = pages.some((page) =>
          page.blocks.some((block) => block.printedBy === command),
        );
        if (shown) continue;
        describe(`the curl lines ${command} prints (${dialect})`, () => {
          // A demo of its own: its lines create rows with the values the pages' examples use.
          const demo = useDemo(name, dialect);
          it('answer as they say, on the seeded rows they name', async () => {
            const port = new URL(demo().url).port;
            const lines = bannerLines(demo().output(), port);
            expect(lines.some((line) => line.startsWith('curl'))).to.equal(true);
            const printed = parseDocPage(command, ['```sh', ...lines, '```'].join('\n'));
            expect(printed.problems).to.deep.equal([]);
            const session = new Session(demo);
            for (const request of printed.blocks.flatMap((block) => block.requests)) {
              await check(session, request);
            }
          });
        });
      }
    });
  }
});

describe('reading documented examples', () => {
  const page = (text: string) => parseDocPage('page.md', text);

  it('takes each curl line of a shell block, its stated status and the JSON answer after it', () => {
    const read = page(
      [
        'Try:',
        '',
        '```sh',
        "curl -s -X POST localhost:3000/v1/tags -H 'content-type: application/json' \\",
        `  -d '{"name":"gift"}'   # 201`,
        'npm run seed',
        'curl -s -i http://localhost:3000/v1/tags/<tag id>',
        '```',
        '',
        '```json',
        '{ "id": "…", "name": "gift" }',
        '```',
      ].join('\n'),
    );
    expect(read.problems).to.deep.equal([]);
    expect(read.blocks).to.have.length(1);
    expect(
      read.blocks[0]!.requests.map((r) => [r.method, r.target, r.body, r.status]),
    ).to.deep.equal([
      ['POST', '/v1/tags', '{"name":"gift"}', 201],
      ['GET', '/v1/tags/<tag id>', undefined, undefined],
    ]);
    expect(read.blocks[0]!.requests[0]!.headers).to.deep.equal({
      'content-type': 'application/json',
    });
    expect(read.blocks[0]!.response?.text).to.equal('{ "id": "…", "name": "gift" }');
  });

  it('takes the request of an http block and leaves out a block marked not checked', () => {
    const read = page(
      [
        '```http',
        'GET /v1/products?search=oak&pageSize=2',
        '```',
        '<!-- not checked: a route of another app -->',
        '```sh',
        'curl -s localhost:3000/v1/tickets',
        '```',
        '```http',
        'HTTP/1.1 503 Service Unavailable',
        '```',
      ].join('\n'),
    );
    expect(read.blocks.map((b) => b.requests.map((r) => `${r.method} ${r.target}`))).to.deep.equal([
      ['GET /v1/products?search=oak&pageSize=2'],
    ]);
  });

  it('reports a curl line it cannot run as written, with its place', () => {
    const read = page(['', '```sh', 'curl -s http://example.com/v1/products', '```'].join('\n'));
    expect(read.problems).to.have.length(1);
    expect(read.problems[0]).to.match(/^page\.md:2: http:\/\/example\.com\/v1\/products is not on/);
  });

  it('compares an answer with the one documented, "…" standing for any value', () => {
    const documented = { id: '…', name: 'gift', tags: [{ name: 'a' }], '…': '…' };
    expect(
      differences(documented, { id: 'x', name: 'gift', tags: [{ name: 'a' }], more: 1 }),
    ).to.deep.equal([]);
    expect(
      differences({ id: '…', updatedBy: null }, { updatedBy: 'seed', extra: true }),
    ).to.deep.equal([
      '$.id: missing',
      '$.updatedBy: "seed", documented null',
      '$.extra: answered but not documented',
    ]);
    expect(differences([1, 2], [1])).to.deep.equal(['$: 1 elements, documented 2']);
  });
});
