// Fuzzing the list route: 1,000 generated query strings per database through listHandler over
// HTTP (LIST_FUZZ_QUERIES for more), from a seed that changes every day (LIST_FUZZ_SEED replays
// one; a failing run's title names it), so that successive runs cover different strings. No 5xx, every 4xx is problem+json with a reason, no SQL error text reaches the client, and
// the table is unchanged afterwards. A quarter of the strings also go, for a page past the first,
// to the route and to one paging by a deferred join (`deferredJoinFrom: 1`): both answer the same.
import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { listHandler, parseListQuery, runListQuery } from '@slicekit/runtime/list-query';
import { allDialects, useDatabase } from '../../support/services.js';
import { createDataset, items, prng, snapshot } from './fixture.js';

const QUERIES = Number(process.env.LIST_FUZZ_QUERIES ?? 1_000);
const SEED = Number(process.env.LIST_FUZZ_SEED ?? Math.floor(Date.now() / 86_400_000));
const CONCURRENCY = 16;
// Database error markers; plain SQL words are not enough, since a 400 may echo the (bounded) input.
const SQL_LEAK = /SQLITE_|ER_[A-Z_]{3,}|syntax error|sqlMessage|sqlState|errno|relation "|column "/;

const FIELDS = [
  'name',
  'Name',
  'NAME',
  'code',
  'price',
  'quantity',
  'is_active',
  'IsActive',
  'is-active',
  'status',
  'createdOn',
  'created_on',
  'releaseDate',
  'id',
  'meta',
  'category',
  'tags',
  'attributes',
  'secret',
  'ownedBy',
  'constructor',
  '__proto__',
  'toString',
  'name;',
  "name'",
  '"name"',
  '',
  ' ',
  'ñame',
  'na me',
];
const OPS = [
  'Equal',
  'NotEqual',
  'GreaterThan',
  'GreaterThanOrEqual',
  'LessThan',
  'LessThanOrEqual',
  'Contains',
  'NotContains',
  'StartsWith',
  'EndsWith',
  'In',
  'NotIn',
  'IsNull',
  'IsNotNull',
  'equal',
  'CONTAINS',
  'isnull',
  'Like',
  'eq',
  '',
  'In ',
  'Between',
];
const VALUES = [
  '',
  'a',
  'É',
  'école',
  '%',
  '_',
  '!',
  '%_!',
  "'",
  "''",
  '"',
  '\\',
  '\\%',
  '1',
  '-1',
  '0',
  '1.5',
  '-0.01',
  '1e308',
  '1e-300',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999',
  'NaN',
  'Infinity',
  'true',
  'FALSE',
  'yes',
  'null',
  'NULL',
  '2024-05-01',
  '2024-02-30',
  '0001-01-01',
  '9999-12-31',
  '2024-05-01T10:00:00Z',
  '2024-05-01T10:00:00+14:00',
  '2024-05-01T25:00:00Z',
  '2024-05-01 10:00:00 05:30',
  '00000000-0000-4000-8000-000000000001',
  '{00000000-0000-4000-8000-000000000001}',
  'draft',
  'ACTIVE',
  "'; DROP TABLE lq_items; --",
  "1' OR '1'='1",
  '1; DELETE FROM lq_items',
  ') OR 1=1 --',
  'UNION SELECT 1',
  '$1',
  '?',
  '??',
  ':name',
  '\u0000',
  'a\u0000b',
  '🙂',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'Ωmega',
  'straße',
  'İstanbul',
  '\u202e',
  'a,b,c',
  '1,2,3',
  ',,,',
  'draft,active,gone',
  '2024-05-01,2024-05-02T00:00:00Z',
];

/** Conditions that hold, so that some groups reach the database. */
const VALID_CONDITIONS = [
  'code:IsNull',
  'price:LessThan:50',
  'name:Contains:a',
  'category.title:Equal:Tools',
  'status:In:draft,active',
  'name:Equal:a|b',
  'name:Contains:(x)',
];

/** Cursors to send: made by the list (for some query), altered, cut, or not cursors at all. */
const CURSORS: string[] = ['', '.', 'abc', 'a.b.c', 'e30.AAAA', '%00', 'x'.repeat(9000)];

function generate(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const rarelyName = (good: readonly string[], bad: readonly string[]) =>
    chance(0.9) ? pick(good) : pick(bad);
  // Long values, cut by code points (a cut surrogate pair cannot be percent-encoded) and kept
  // under the 16 KB header limit of Node's HTTP server, which answers 431 before any route runs.
  const huge = (text: string) => {
    let out = '';
    let encoded = 0;
    for (const c of Array.from(text.repeat(1 + Math.floor(random() * 5000)))) {
      encoded += encodeURIComponent(c).length;
      if (encoded > 10_000) break;
      out += c;
    }
    return out;
  };
  const encode = (text: string) =>
    chance(0.8) ? encodeURIComponent(text) : text.replace(/[&#]/g, encodeURIComponent);
  const params: string[] = [];
  const add = (name: string, value: string) => params.push(`${encode(name)}=${encode(value)}`);
  const grouped = chance(0.25);
  const filters =
    grouped && chance(0.5)
      ? 0
      : chance(0.05)
        ? 21 + Math.floor(random() * 10)
        : Math.floor(random() * 4);
  for (let i = 0; i < filters; i++) {
    let value = chance(0.5)
      ? pick(VALUES)
      : Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(VALUES)).join(
          pick([',', ':', '']),
        );
    if (chance(0.02)) value = huge(value || 'x');
    const shape = random();
    const filter =
      shape < 0.1
        ? pick(FIELDS)
        : shape < 0.2
          ? `${pick(FIELDS)}:${pick(OPS)}`
          : `${pick(FIELDS)}:${pick(OPS)}:${value}`;
    add(pick(['filter', 'filter', 'filter', 'Filter', 'filter[]']), filter);
  }
  // OR groups and select: mostly well-formed (so they reach the database), now and then broken.
  if (grouped) {
    const rarely = <T>(good: T, bad: readonly T[]): T => (chance(0.9) ? good : pick(bad));
    const member = (depth: number): string => {
      if (depth < 5 && chance(0.15)) return group(depth + 1);
      const text = chance(0.85)
        ? pick(VALID_CONDITIONS)
        : `${pick(FIELDS)}:${pick(OPS)}:${pick(VALUES)}`;
      return chance(0.5) ? text.replace(/[\\|()]/g, (c) => `\\${c}`) : text;
    };
    const group = (depth: number): string =>
      `${rarely(pick(['or(', 'and(', 'OR (']), ['or', 'not(', '(', ''])}${Array.from(
        { length: chance(0.05) ? 25 : 1 + Math.floor(random() * 3) },
        () => member(depth),
      ).join(rarely('|', [',', '||']))}${rarely(')', ['', '))', ')x'])}`;
    const groups = chance(0.05) ? 12 : 1 + Math.floor(random() * 2);
    for (let i = 0; i < groups; i++) add('filter', group(1));
  }
  if (chance(0.15)) {
    const names = [
      ...FIELDS.slice(0, 14),
      'category.title',
      'category.id',
      'tags',
      'meta',
      'meta.label',
      'META.weight',
      'parts.sku',
      'parts',
    ];
    const bad = [
      'category.nope',
      'meta.nope',
      'attributes.colour',
      'labels.x',
      'name.first',
      '',
      'secret',
      'ownedBy',
    ];
    add(
      pick(['select', 'Select']),
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => rarelyName(names, bad)).join(
        chance(0.95) ? ',' : pick([',,', '.', ';']),
      ),
    );
  }
  if (chance(0.4))
    add(
      'search',
      chance(0.03) ? huge(pick(VALUES) || 'y') : pick(VALUES) + (chance(0.5) ? pick(VALUES) : ''),
    );
  if (chance(0.3)) add('orderBy', pick(FIELDS));
  if (chance(0.2)) add('desc', pick(['true', 'false', '1', '0', '', 'yes', '2']));
  if (chance(0.3))
    add('pageNumber', pick(['1', '2', '0', '-5', '999999999999', 'x', '1.5', '', '1e3', ' 3 ']));
  if (chance(0.3))
    add('pageSize', pick(['1', '20', '100', '101', '0', '-1', 'abc', '99999999999999999999']));
  if (chance(0.05)) add(pick(['sort', 'page', 'limit', 'q', '$where']), pick(VALUES));
  if (chance(0.15)) add('cursor', pick(CURSORS));
  if (chance(0.03)) add('pageSize', '5');
  return params.join('&');
}

for (const dialect of allDialects) {
  describe(`list route fuzzing on ${dialect}`, function () {
    this.timeout(180_000);
    const db = useDatabase(dialect);
    let server: Server;
    let base: string;

    before(async () => {
      await createDataset(db.knex);
      const app = express();
      app.get('/items', listHandler(items, db.knex));
      app.get('/deferred', listHandler(items, db.knex, { deferredJoinFrom: 1 }));
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items?`;
      // Made without HTTP: a keep-alive socket left idle here could be closed under the fuzzer.
      for (const query of [
        {},
        { orderBy: 'code' },
        { orderBy: 'price', desc: '1' },
        { filter: 'or(code:IsNull|price:LessThan:50)', select: 'id,name' },
      ]) {
        const parsed = parseListQuery(items, { ...query, pageSize: '3' });
        const made = (await runListQuery(db.knex, items, parsed)).nextCursor!;
        CURSORS.push(made, made.slice(0, -1), made.replace(/[A-Z]/, 'q'), `${made}.x`);
      }
    });
    after(
      () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
    );

    it(`answers ${QUERIES} generated query strings (seed ${SEED}) without a 5xx or a leaked SQL error`, async () => {
      const before = await snapshot(db.knex);
      const random = prng(SEED * 7919 + dialect.length);
      const queries: string[] = [];
      while (queries.length < QUERIES) {
        const query = generate(random);
        // Measured as sent: fetch percent-encodes what the generator left raw.
        if (new URL(`http://h/?${query}`).search.length < 14_000) queries.push(query);
      }
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let next = 0;
      let deep = 0;
      const worker = async () => {
        while (next < queries.length && failures.length < 5) {
          const n = next++;
          const query = queries[n]!;
          const response = await fetch(base + query);
          const text = await response.text();
          if (n % 4 === 0) {
            // The same filters, search, order and select on a page past the first.
            const paged =
              query.replace(/(^|&)(pageNumber|pageSize)=[^&]*/gi, '') +
              `&pageSize=${1 + (n % 5)}&pageNumber=${2 + (n % 3)}`;
            const [plain, deferred] = await Promise.all(
              ['/items?', '/deferred?'].map((path) => fetch(base.replace('/items?', path) + paged)),
            );
            const expected = `${plain!.status} ${await plain!.text()}`;
            // A problem's instance names the route.
            const body = (await deferred!.text()).replace('"/deferred?', '"/items?');
            if (plain!.status === 200 && expected.includes('"items":[{')) deep++;
            if (`${deferred!.status} ${body}` !== expected)
              failures.push(
                `the deferred join differs for ?${paged.slice(0, 300)}: ${body.slice(0, 300)}`,
              );
          }
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const type = response.headers.get('content-type') ?? '';
          if (response.status >= 500)
            failures.push(`${response.status} for ?${query.slice(0, 300)}: ${text.slice(0, 300)}`);
          else if (response.status >= 400) {
            let body: { detail?: unknown; reason?: unknown } = {};
            try {
              body = JSON.parse(text) as typeof body;
            } catch {
              // an unreadable body is reported just below as a bad problem
            }
            if (
              !type.startsWith('application/problem+json') ||
              typeof body.detail !== 'string' ||
              !body.reason
            ) {
              failures.push(
                `bad problem (${response.status}) for ?${query.slice(0, 300)}: ${type} ${text.slice(0, 300)}`,
              );
            }
          } else if (!text.startsWith('{"items":[')) {
            failures.push(
              `${response.status} without items for ?${query.slice(0, 300)}: ${text.slice(0, 200)}`,
            );
          }
          if (SQL_LEAK.test(text) && response.status !== 200)
            failures.push(`SQL text leaked for ?${query.slice(0, 300)}: ${text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(failures).to.deep.equal([]);
      // Both outcomes must be well represented, or the fuzzer is not reaching the database.
      expect(statuses.get(200) ?? 0).to.be.above(QUERIES / 10);
      expect(statuses.get(400) ?? 0).to.be.above(QUERIES / 10);
      expect(deep, 'pages past the first compared with the deferred join').to.be.above(
        QUERIES / 100,
      );
      expect(await snapshot(db.knex)).to.deep.equal(before);
    });
  });
}
