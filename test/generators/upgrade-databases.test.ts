// A slice upgraded step by step (up to a sequence-numbered field, a unique field made to ignore case
// and soft delete), each step's ALTER migration
// run on SQLite, PostgreSQL and MySQL over a table holding rows: the migration runs, the rows stay
// intact, the new shape answers over HTTP, and `down` gives back the table as it was. The slice
// is generated and upgraded once; each database runs the same migration files.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import request from 'supertest';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { DataLossError } from '../../generators/upgrade/errors.js';
import { repoRoot } from '../support/scratch-slices.js';
import { appOf, indexNames, loadMigration } from './support/upgraded-app.js';
import { describeEachDatabase, uniqueName } from '../support/services.js';

const dir = join(repoRoot, '.work', uniqueName('upgrade'));
const SPEC = join(dir, 'src/slices/notes/note.entity.yaml');

const field = {
  title: '  title: { type: string, required: true, maxLength: 100 }',
  status: '  status: { type: enum, values: [draft, live], default: draft }',
  summary: '  summary: { type: string, maxLength: 200 }',
  legacy: '  legacy: { type: integer }',
  priority: '  priority: { type: integer, required: true, default: 3 }',
};
const spec = (...fields: string[]) => ['entity: Note', 'fields:', ...fields, ''].join('\n');

/** Each step: its spec, and what it must show on every database. */
const steps = [
  {
    name: 'adds an optional field',
    spec: spec(field.title, field.status, field.summary, field.legacy),
  },
  {
    name: 'adds a required field with a default',
    spec: spec(field.title, field.status, field.summary, field.legacy, field.priority),
  },
  {
    name: 'widens maxLength',
    spec: spec(
      field.title.replace('100', '300'),
      field.status,
      field.summary,
      field.legacy,
      field.priority,
    ),
  },
  {
    name: 'adds an enum value',
    spec: spec(
      field.title.replace('100', '300'),
      field.status.replace('live]', 'live, archived]'),
      field.summary,
      field.legacy,
      field.priority,
    ),
  },
  {
    name: 'renames a field with renamedFrom',
    spec: spec(
      field.title.replace('100', '300'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.legacy,
      field.priority,
    ),
  },
  {
    name: 'drops a field once the data loss is accepted',
    spec: spec(
      field.title.replace('100', '300'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.priority,
    ),
  },
  {
    name: 'adds unique',
    spec: spec(
      field.title.replace('100', '300').replace(' }', ', unique: true }'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.priority,
    ),
  },
  {
    name: 'adds a sequence-numbered field',
    spec: spec(
      field.title.replace('100', '300').replace(' }', ', unique: true }'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.priority,
      "  number: { type: string, maxLength: 20, sequence: { format: 'N{1:0000}' } }",
    ),
  },
  {
    name: 'makes the unique field ignore case',
    spec: spec(
      field.title.replace('100', '300').replace(' }', ', unique: { ignoreCase: true } }'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.priority,
      "  number: { type: string, maxLength: 20, sequence: { format: 'N{1:0000}' } }",
    ),
  },
  {
    name: 'switches soft delete on (the unique field exact again)',
    spec: spec(
      field.title.replace('100', '300').replace(' }', ', unique: true }'),
      field.status.replace('live]', 'live, archived]'),
      '  abstract: { type: string, maxLength: 200, renamedFrom: summary }',
      field.priority,
      "  number: { type: string, maxLength: 20, sequence: { format: 'N{1:0000}' } }",
    ).replace('fields:', 'softDelete: true\nfields:'),
  },
];

/** Per step: the migration it wrote and a copy of the slice as it was then. */
const versions: { migration: string; slices: string }[] = [];
let createMigration = '';

async function generate(answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions(answers);
}

function snapshotSlice(n: number): string {
  // A folder per version: Node caches modules by URL, so each version is imported afresh.
  const target = join(dir, 'versions', String(n));
  cpSync(join(dir, 'src/slices/notes'), join(target, 'notes'), { recursive: true });
  return target;
}

before(async () => {
  mkdirSync(join(dir, 'src/slices/notes'), { recursive: true });
  writeFileSync(join(dir, 'note.yaml'), spec(field.title, field.status, field.legacy));
  const first = await generate({ specFile: join(dir, 'note.yaml'), now: '2024-05-01T09:30:00Z' });
  expect(first.failures).to.deep.equal([]);
  createMigration = readdirSync(join(dir, 'migrations'))[0]!;
  versions.push({ migration: createMigration, slices: snapshotSlice(0) });
  for (const [i, step] of steps.entries()) {
    writeFileSync(SPEC, step.spec);
    const now = `2025-01-01T00:00:${String(i + 1).padStart(2, '0')}Z`;
    if (step.name.startsWith('drops')) {
      const refused = await generate({ specFile: SPEC, now }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).to.be.instanceOf(DataLossError);
      expect((refused as Error).message).to.contain('legacy is dropped');
    }
    const result = await generate({ specFile: SPEC, now, 'accept-data-loss': true });
    expect(result.failures, step.name).to.deep.equal([]);
    const migration = readdirSync(join(dir, 'migrations')).sort().at(-1)!;
    expect(migration).to.equal(`202501010000${String(i + 1).padStart(2, '0')}_alter_notes.ts`);
    if (step.name.includes('soft delete')) {
      // Unique among live rows: the plain unique index goes, the live one comes last; so does
      // the list's default order, then over live rows only.
      const text = readFileSync(join(dir, 'migrations', migration), 'utf8');
      expect(text).to.contain(
        "liveUniqueMigration({ table: 'notes', unique: [['title']] }).up(knex)",
      );
      expect(text).to.contain("table.dropIndex(['created_on', 'id']);");
      // The column the switch adds is described in words, its options included.
      expect(text).to.match(/added: deleted_on datetime\(\{ (\w+: \w+(, )?)+ \}\), optional/);
      expect(text).not.to.contain('[object Object]');
      expect(text.replace(/\s+/g, ' ')).to.contain(
        "liveIndexMigration({ table: 'notes', indexes: [{ scope: [], columns: ['created_on', 'id'] }], }).up(knex)",
      );
    }
    versions.push({ migration, slices: snapshotSlice(i + 1) });
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

const load = (file: string) => loadMigration(dir, file);

/** The columns as the database reports them, in a form the three compare alike. */
async function shape(knex: Knex): Promise<Record<string, unknown>> {
  const info = await knex('notes').columnInfo();
  return Object.fromEntries(
    Object.entries(info)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, c]) => [
        name,
        { type: c.type.toLowerCase(), maxLength: c.maxLength, nullable: c.nullable },
      ]),
  );
}

describeEachDatabase('upgrading a slice with rows', (db) => {
  let ids: string[] = [];
  let original: Record<string, unknown>[] = [];
  const rows = async () =>
    (await db.knex('notes').whereIn('id', ids).orderBy('id')) as Record<string, unknown>[];

  before(async () => {
    await (await load(createMigration)).up(db.knex);
    const app = await appOf(versions[0]!.slices, db.knex);
    ids = [];
    for (const [title, legacy] of [
      ['First note', 1],
      ['Second note', 2],
      ['Third note', null],
    ] as const) {
      const res = await request(app).post('/v1/notes').send({ title, legacy });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id as string);
    }
    original = await rows();
  });

  for (const [i, step] of steps.entries()) {
    it(`${step.name}: migrates, keeps the rows, answers over HTTP, and down restores the table`, async () => {
      const version = versions[i + 1]!;
      const migration = await load(version.migration);
      const before = await shape(db.knex);
      await migration.up(db.knex);
      const after = await rows();
      expect(after.map((r) => [r['id'], r['title'], r['status']])).to.deep.equal(
        original.map((r) => [r['id'], r['title'], r['status']]),
      );
      const app = await appOf(version.slices, db.knex);
      const old = await request(app).get(`/v1/notes/${ids[0]}`);
      expect(old.status).to.equal(200);
      expect(old.body.title).to.equal('First note');
      const body: Record<string, unknown> = { title: `Made at step ${i + 1}` };
      if (i >= 0 && i < 4) body['summary'] = 'A short summary';
      if (i >= 4) body['abstract'] = 'A short abstract';
      if (i < 5) body['legacy'] = 7;
      if (i >= 2) body['title'] = 'A title longer than a hundred characters. '.repeat(3).trim();
      const made = await request(app).post('/v1/notes').send(body);
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      expect(made.body).to.include(body);
      switch (i) {
        case 0:
          expect(old.body.summary).to.equal(null);
          break;
        case 1:
          expect(old.body.priority).to.equal(3);
          expect(made.body.priority).to.equal(3);
          break;
        case 3: {
          await db.knex('notes').where({ id: ids[2] }).update({ status: 'archived' });
          const archived = await request(app).get(`/v1/notes/${ids[2]}`);
          expect(archived.body.status).to.equal('archived');
          break;
        }
        case 4:
          expect(old.body.abstract).to.equal('Kept through the rename');
          expect(old.body).not.to.have.property('summary');
          break;
        case 5:
          expect(old.body).not.to.have.property('legacy');
          break;
        case 7: {
          // The rows the table held were numbered oldest first; a new row takes the next number.
          const numbers = (await rows()).map((r) => r['number']);
          expect(numbers.slice().sort()).to.deep.equal(['N0001', 'N0002', 'N0003']);
          expect(made.body.number).to.equal('N0004');
          break;
        }
        case 8: {
          const variant = await request(app).post('/v1/notes').send({ title: 'FIRST NOTE' });
          expect(variant.status, JSON.stringify(variant.body)).to.equal(409);
          expect(variant.body).to.deep.include({ code: 'crud.duplicate', fields: ['title'] });
          break;
        }
        case 9: {
          // The list's order reads the live rows only (the plain index comes back with down).
          const names = await indexNames(db.knex, db.dialect, 'notes');
          expect(names).to.include('notes_created_on_id_live');
          expect(names).not.to.include('notes_created_on_id_index');
          // The rows it held are live; a deleted one's title can be taken, and its restore is 409.
          const second = `/v1/notes/${ids[1]}`;
          expect((await request(app).delete(second)).status).to.equal(204);
          expect((await request(app).get(second)).status).to.equal(404);
          const taken = await request(app).post('/v1/notes').send({ title: 'Second note' });
          expect(taken.status, JSON.stringify(taken.body)).to.equal(201);
          const refused = await request(app).post(`${second}/restore`);
          expect(refused.status).to.equal(409);
          expect(refused.body).to.include({ code: 'crud.duplicate' });
          await db
            .knex('notes')
            .where({ id: taken.body.id as string })
            .delete();
          expect((await request(app).post(`${second}/restore`)).status).to.equal(200);
          break;
        }
        case 6: {
          const again = { id: '00000000-0000-4000-8000-000000000001', title: 'First note' };
          const duplicate = await db
            .knex('notes')
            .insert({ ...again, created_on: new Date(), updated_on: new Date() })
            .then(
              () => 'inserted',
              () => 'refused',
            );
          expect(duplicate).to.equal('refused');
          break;
        }
      }
      await db
        .knex('notes')
        .where({ id: made.body.id as string })
        .delete();
      // Down gives the table back as it was; up again moves on to the next step.
      await migration.down(db.knex);
      expect(await shape(db.knex)).to.deep.equal(before);
      if (i === 9) {
        expect(await indexNames(db.knex, db.dialect, 'notes')).to.include(
          'notes_created_on_id_index',
        );
      }
      if (i === 8) {
        // Exact again: a title differing in case only is another title.
        const variant = { id: '00000000-0000-4000-8000-000000000002', title: 'FIRST NOTE' };
        const row = { ...variant, created_on: new Date(), updated_on: new Date(), number: 'N9999' };
        await db.knex('notes').insert(row);
        await db.knex('notes').where({ id: variant.id }).delete();
      }
      if (i === 3) {
        // The rows holding the new value took the default, and the old check is back.
        const [row] = await db.knex('notes').where({ id: ids[2] }).select('status');
        expect(row.status).to.equal('draft');
        const refused = await db
          .knex('notes')
          .where({ id: ids[2] })
          .update({ status: 'archived' })
          .then(
            () => 'updated',
            () => 'refused',
          );
        expect(refused).to.equal('refused');
      }
      await migration.up(db.knex);
      if (i === 0)
        await db.knex('notes').where({ id: ids[0] }).update({ summary: 'Kept through the rename' });
    });
  }

  it("keeps a renamed column's values and a new column's default in the rows it had", async () => {
    const [first] = await db.knex('notes').where({ id: ids[0] }).select('abstract', 'priority');
    expect(first).to.deep.equal({ abstract: 'Kept through the rename', priority: 3 });
  });
});

// Adding tenant: true to a table holding rows: refused without the tenant they belong to, then
// with --default-tenant every row takes it, unique values hold per tenant (look-alike tenants
// apart, whatever the collation), and down gives the table back.
describe('upgrading a slice to tenant: true', () => {
  const tenantDir = join(repoRoot, '.work', uniqueName('upgrade-tenant'));
  const shelf = (tenant: boolean) =>
    [
      'entity: Shelf',
      ...(tenant ? ['tenant: true'] : []),
      'fields:',
      '  code: { type: string, required: true, unique: true, maxLength: 20 }',
      '',
    ].join('\n');
  let create = '';
  let upgrade = '';

  before(async () => {
    const run = async (answers: Record<string, unknown>) => {
      const plop = await nodePlop(undefined, { destBasePath: tenantDir, force: false });
      registerEntityGenerator(plop);
      return plop.getGenerator('entity').runActions(answers);
    };
    mkdirSync(join(tenantDir, 'src/slices'), { recursive: true });
    writeFileSync(join(tenantDir, 'shelf.yaml'), shelf(false));
    const first = await run({
      specFile: join(tenantDir, 'shelf.yaml'),
      now: '2024-05-01T09:30:00Z',
    });
    expect(first.failures).to.deep.equal([]);
    const saved = join(tenantDir, 'src/slices/shelves/shelf.entity.yaml');
    writeFileSync(saved, shelf(true));
    const now = '2025-01-01T00:00:01Z';
    const refused = await run({ specFile: saved, now }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(DataLossError);
    expect((refused as Error).message).to.contain('--default-tenant');
    const result = await run({ specFile: saved, now, 'default-tenant': 'ACME' });
    expect(result.failures).to.deep.equal([]);
    [create, upgrade] = readdirSync(join(tenantDir, 'migrations')).sort() as [string, string];
    // The list's default order is read within one tenant: its index is led by the tenant now.
    const text = readFileSync(join(tenantDir, 'migrations', upgrade), 'utf8');
    expect(text).to.contain("table.index(['tenant_id', 'created_on', 'id']);");
    expect(text).to.contain("table.dropIndex(['created_on', 'id']);");
  });
  after(() => rmSync(tenantDir, { recursive: true, force: true }));

  describeEachDatabase('on a table with rows', (db) => {
    it('stamps every row with the default tenant, holds codes per tenant, and down restores it', async () => {
      await (await loadMigration(tenantDir, create)).up(db.knex);
      const now = new Date();
      const row = (code: string, n: number) => ({
        id: `00000000-0000-4000-8000-00000000000${n}`,
        code,
        created_on: now,
        updated_on: now,
      });
      await db.knex('shelves').insert([row('A1', 1), row('B2', 2)]);
      const migration = await loadMigration(tenantDir, upgrade);
      await migration.up(db.knex);
      expect(await indexNames(db.knex, db.dialect, 'shelves')).to.include.members([
        'shelves_tenant_id_created_on_id_index',
      ]);
      const tenants = await db.knex('shelves').orderBy('code').pluck('tenant_id');
      expect(tenants).to.deep.equal(['ACME', 'ACME']);
      // A1 once per tenant: look-alike tenants are others, the same tenant is refused.
      for (const [n, tenant] of ['acme', 'ACME ', 'acmé'].entries()) {
        await db.knex('shelves').insert({ ...row('A1', n + 3), tenant_id: tenant });
      }
      const again = await db
        .knex('shelves')
        .insert({ ...row('A1', 7), tenant_id: 'ACME' })
        .then(
          () => 'inserted',
          () => 'refused',
        );
      expect(again).to.equal('refused');
      await db.knex('shelves').whereNot('tenant_id', 'ACME').delete();
      await migration.down(db.knex);
      expect(Object.keys(await db.knex('shelves').columnInfo())).to.not.include('tenant_id');
      expect(await db.knex('shelves').orderBy('code').pluck('code')).to.deep.equal(['A1', 'B2']);
    });
  });
});
