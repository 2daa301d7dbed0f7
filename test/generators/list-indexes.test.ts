// The indexes a slice's list needs, as its migrations make them on SQLite, PostgreSQL and MySQL:
// the default order, sortable and filterable fields, and the search index, asked of each
// database's catalog; the search reads the index (EXPLAIN), finds rows written with plain SQL,
// and an upgrade adding a sortable field and dropping the search index writes both ways.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import request from 'supertest';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { repoRoot } from '../support/scratch-slices.js';
import { appOf, loadMigration } from './support/upgraded-app.js';
import { describeEachDatabase, uniqueName } from '../support/services.js';

const dir = join(repoRoot, '.work', uniqueName('list-indexes'));
const SPEC = join(dir, 'src/slices/notes/note.entity.yaml');
const fields = [
  '  title: { type: string, required: true, maxLength: 100, filterable: true }',
  '  body: { type: text }',
  '  rank: { type: integer, sortable: true }',
];
const spec = (extra: string[], top: string[] = []) =>
  ['entity: Note', ...top, 'fields:', ...fields, ...extra, ''].join('\n');
let create = '';
let upgrade = '';

async function generate(answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  const result = await plop.getGenerator('entity').runActions(answers);
  expect(result.failures).to.deep.equal([]);
}

before(async () => {
  mkdirSync(join(dir, 'src/slices/notes'), { recursive: true });
  writeFileSync(join(dir, 'note.yaml'), spec([]));
  await generate({ specFile: join(dir, 'note.yaml'), now: '2024-05-01T09:30:00Z' });
  create = readdirSync(join(dir, 'migrations'))[0]!;
  // The slice as first generated (Node caches modules by URL: a folder of its own).
  cpSync(join(dir, 'src/slices/notes'), join(dir, 'first/notes'), { recursive: true });
  writeFileSync(SPEC, spec(['  due: { type: date, sortable: true }'], ['searchIndex: false']));
  await generate({ specFile: SPEC, now: '2025-01-01T00:00:01Z' });
  upgrade = readdirSync(join(dir, 'migrations')).sort().at(-1)!;
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Each index of `notes` as its columns, comma-separated, as the database's catalog tells. */
async function indexes(knex: Knex, dialect: string): Promise<string[]> {
  if (dialect === 'sqlite') {
    const rows = (await knex.raw(
      "select il.name as name, ii.name as col from pragma_index_list('notes') il join pragma_index_info(il.name) ii where il.origin <> 'pk' order by il.name, ii.seqno",
    )) as { name: string; col: string }[];
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.name, [...(by.get(r.name) ?? []), r.col]);
    return [...by.values()].map((c) => c.join(',')).sort();
  }
  if (dialect === 'postgres') {
    const { rows } = (await knex.raw(
      "select indexdef from pg_indexes where tablename = 'notes' and indexname <> 'notes_pkey'",
    )) as { rows: { indexdef: string }[] };
    return rows
      .map((r) =>
        /\((.*)\)$/
          .exec(r.indexdef)![1]!
          .replace(/ gin_trgm_ops/g, '')
          .replace(/ /g, ''),
      )
      .sort();
  }
  const [rows] = (await knex.raw(
    "select index_name as name, group_concat(column_name order by seq_in_index) as cols from information_schema.statistics where table_schema = database() and table_name = 'notes' and index_name <> 'PRIMARY' group by index_name",
  )) as [{ cols: string }[]];
  return rows.map((r) => r.cols).sort();
}

describeEachDatabase('the indexes of a list', (db) => {
  const name = () => db.dialect;
  before(async () => (await loadMigration(dir, create)).up(db.knex));

  it('are made by the create migration: default order, filterable, sortable, search', async () => {
    const found = await indexes(db.knex, name());
    const expected = ['created_on,id', 'rank,id', 'title'];
    // The search index covers the DTO's text columns; MySQL has none serving a substring match.
    if (name() === 'postgres') expected.push('title,body,created_by,updated_by');
    expect(found).to.deep.equal(expected.sort());
    if (name() === 'sqlite') {
      const [fts] = (await db.knex.raw(
        "select sql from sqlite_master where name = 'notes__search'",
      )) as { sql: string }[];
      expect(fts?.sql).to.match(/fts5\("title", "body", "created_by", "updated_by".*trigram/);
    }
  });

  it('finds rows written with plain SQL by search, through the search index', async () => {
    const now = new Date();
    const rows = Array.from({ length: 300 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      title: i === 7 ? 'Ünïcode İstanbul MEETING' : `note ${i}`,
      body: i === 9 ? 'the quarterly meeting' : null,
      created_on: now,
      updated_on: now,
    }));
    await db.knex.batchInsert('notes', rows, 100);
    const app = await appOf(join(dir, 'first'), db.knex);
    // Twice: the first search of a process reads which search indexes SQLite has, the second
    // finds them known.
    for (const term of ['meeting', 'meeting']) {
      const res = await request(app).get('/v1/notes').query({ search: term, pageSize: 50 });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((n: { title: string }) => n.title).sort()).to.deep.equal([
        'note 9',
        'Ünïcode İstanbul MEETING',
      ]);
    }
    for (const [term, count] of [
      ['mi', 0],
      ['İst', 1],
      ['eti', 2],
      ['note 299', 1],
    ] as const) {
      const res = await request(app).get('/v1/notes').query({ search: term, pageSize: 50 });
      expect(res.body.totalItemCount, term).to.equal(count);
    }
    await db.knex('notes').where({ id: rows[9]!.id }).update({ body: 'moved on' });
    const gone = await request(app).get('/v1/notes').query({ search: 'quarterly' });
    expect(gone.body.totalItemCount).to.equal(0);
    if (name() === 'sqlite') {
      // The engine's own page query, as it ran: its plan reads the FTS table.
      const seen: { sql: string; bindings: unknown[] }[] = [];
      const record = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
      db.knex.on('query', record);
      await request(app).get('/v1/notes').query({ search: 'meeting' });
      db.knex.off('query', record);
      const page = seen.find((q) => /limit/i.test(q.sql))!;
      expect(page.sql).to.contain('"notes__search" MATCH ?');
      const plan = (await db.knex.raw(
        `explain query plan ${page.sql}`,
        page.bindings as Knex.RawBinding[],
      )) as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).to.match(/VIRTUAL TABLE INDEX \d+:M/);
    }
    if (name() === 'postgres') {
      await db.knex.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        const { rows: plan } = (await trx.raw(
          `explain select id from notes where (title is not null and title ilike '%meeting%') or (body is not null and body ilike '%meeting%')`,
        )) as { rows: { 'QUERY PLAN': string }[] };
        expect(plan.map((p) => p['QUERY PLAN']).join('\n')).to.contain('notes__search');
      });
    }
  });

  it('an upgrade adding a sortable field and leaving the search index out writes both ways', async () => {
    const migration = await loadMigration(dir, upgrade);
    await migration.up(db.knex);
    const found = await indexes(db.knex, name());
    expect(found).to.deep.equal(['created_on,id', 'due,id', 'rank,id', 'title']);
    if (name() === 'sqlite') {
      const fts = await db.knex.raw(
        "select name from sqlite_master where name like 'notes__search%'",
      );
      expect(fts).to.deep.equal([]);
    }
    await migration.down(db.knex);
    expect((await indexes(db.knex, name())).length).to.equal(name() === 'postgres' ? 4 : 3);
  });
});
