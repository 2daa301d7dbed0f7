// A slice upgraded step by step through relation changes, each step's ALTER migration run on
// SQLite, PostgreSQL and MySQL over tables holding rows: a reference added (column, index,
// foreign key), a many-to-many added (join table), an enum value added (SQLite's rebuild keeps
// the foreign key), a unique field and the reference renamed (their index and key made again
// under the new names, so that dropping `unique` next finds it), both references removed
// (refused, then accepted), and a reference to the table itself added (a tree). After each: the
// rows stay, the new shape answers over HTTP (a bad reference is 422 crud.invalid_reference), and
// `down` gives back the columns, indexes, foreign keys and tables as they were. A required
// reference, accepted, is added to an empty table and fails on one with rows.
import { expect } from 'chai';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import request from 'supertest';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { DataLossError } from '../../generators/upgrade/errors.js';
import { repoRoot } from '../support/scratch-slices.js';
import { appOf, loadMigration } from './support/upgraded-app.js';
import { describeEachDatabase, uniqueName, type DatabaseHandle } from '../support/services.js';

const dir = join(repoRoot, '.work', uniqueName('upgrade-relations'));
const SPEC = join(dir, 'src/slices/notes/note.entity.yaml');
const MISSING = '00000000-0000-4000-8000-00000000beef';

const field = {
  title: '  title: { type: string, required: true, maxLength: 100 }',
  code: '  code: { type: string, maxLength: 20, unique: true }',
  customer: '  customer: { type: reference, entity: Customer }',
  client: '  client: { type: reference, entity: Customer, renamedFrom: customer }',
  tags: '  tags: { type: reference, entity: Tag, many: true }',
  status: '  status: { type: enum, values: [draft, live], default: draft }',
  ref: '  ref: { type: string, maxLength: 20, unique: true, renamedFrom: code }',
};
const spec = (...fields: string[]) =>
  ['entity: Note', 'fields:', ...fields, field.status, ''].join('\n');
const archived = 'status: { type: enum, values: [draft, live, archived], default: draft }';
const withArchived = (text: string) => text.replace(field.status.trim(), archived);

const steps = [
  {
    name: 'adds an optional reference',
    spec: spec(field.title, field.code, field.customer),
  },
  {
    name: 'adds a many-to-many',
    spec: spec(field.title, field.code, field.customer, field.tags),
  },
  {
    name: 'adds an enum value to the table with a foreign key (SQLite rebuilds it)',
    spec: withArchived(spec(field.title, field.code, field.customer, field.tags)),
  },
  {
    name: 'renames a unique field and the reference',
    spec: withArchived(spec(field.title, field.ref, field.client, field.tags)),
  },
  {
    name: 'drops unique from the renamed field',
    spec: withArchived(
      spec(field.title, field.ref.replace(', unique: true', ''), field.client, field.tags),
    ),
  },
  {
    name: 'removes both references once the data loss is accepted',
    spec: withArchived(spec(field.title, field.ref.replace(', unique: true', ''))),
  },
  {
    name: 'adds a reference to its own table (a tree)',
    spec: withArchived(
      spec(
        field.title,
        field.ref.replace(', unique: true', ''),
        '  parent: { type: reference, entity: Note, inverse: children }',
      ),
    ),
  },
];

const TASK = 'entity: Task\nfields:\n  title: { type: string, required: true, maxLength: 80 }\n';
const REQUIRED_TASK = TASK.replace(
  'fields:\n',
  'fields:\n  customer: { type: reference, entity: Customer, required: true }\n',
);
let taskMigration = '';

/** Per step: the migration it wrote and a copy of the app's slices as they were then. */
const versions: { migration: string; slices: string }[] = [];
let createMigrations: string[] = [];

async function generate(answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions(answers);
}

function snapshotSlices(n: number): string {
  // A folder per version: Node caches modules by URL, so each version is imported afresh.
  const target = join(dir, 'versions', String(n));
  cpSync(join(dir, 'src/slices'), target, { recursive: true });
  return target;
}

before(async function () {
  this.timeout(120_000);
  mkdirSync(join(dir, 'specs'), { recursive: true });
  writeFileSync(
    join(dir, 'specs/customer.yaml'),
    'entity: Customer\nfields:\n  name: { type: string, required: true, maxLength: 100 }\n',
  );
  writeFileSync(
    join(dir, 'specs/tag.yaml'),
    'entity: Tag\nfields:\n  label: { type: string, required: true, maxLength: 40 }\n',
  );
  writeFileSync(join(dir, 'specs/note.yaml'), spec(field.title, field.code));
  writeFileSync(join(dir, 'specs/task.yaml'), TASK);
  const first = await generate({ specFile: join(dir, 'specs'), now: '2024-05-01T09:30:00Z' });
  expect(first.failures).to.deep.equal([]);
  createMigrations = readdirSync(join(dir, 'migrations')).sort();
  versions.push({ migration: '', slices: snapshotSlices(0) });
  for (const [i, step] of steps.entries()) {
    writeFileSync(SPEC, step.spec);
    const now = `2025-01-01T00:00:0${i + 1}Z`;
    if (step.name.startsWith('removes')) {
      const refused = await generate({ specFile: SPEC, now }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).to.be.instanceOf(DataLossError);
      expect((refused as Error).message).to.contain(
        'client_id is dropped: every row loses the row it refers to',
      );
      expect((refused as Error).message).to.contain(
        'note_tags (the join table of a many-to-many to tags) is dropped',
      );
      expect(readdirSync(join(dir, 'migrations'))).to.have.length(createMigrations.length + i);
    }
    const result = await generate({ specFile: SPEC, now, 'accept-data-loss': true });
    expect(result.failures, step.name).to.deep.equal([]);
    const migration = readdirSync(join(dir, 'migrations')).sort().at(-1)!;
    expect(migration).to.equal(`2025010100000${i + 1}_alter_notes.ts`);
    versions.push({ migration, slices: snapshotSlices(i + 1) });
  }
  // A required reference, accepted: added empty, then made NOT NULL.
  writeFileSync(join(dir, 'src/slices/tasks/task.entity.yaml'), REQUIRED_TASK);
  const task = await generate({
    specFile: join(dir, 'src/slices/tasks/task.entity.yaml'),
    now: '2025-01-01T00:00:09Z',
    'accept-data-loss': true,
  });
  expect(task.failures).to.deep.equal([]);
  taskMigration = readdirSync(join(dir, 'migrations')).sort().at(-1)!;
  expect(taskMigration).to.equal('20250101000009_alter_tasks.ts');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const load = (file: string) => loadMigration(dir, file);

/**
 * The notes table and its join table as the database reports them: columns, index names,
 * foreign keys (column -> table, on delete) and whether note_tags exists.
 */
async function shape(db: DatabaseHandle): Promise<Record<string, unknown>> {
  const { knex } = db;
  const info = await knex('notes').columnInfo();
  const columns = Object.keys(info).sort();
  let indexes: string[];
  let keys: string[];
  if (db.dialect === 'sqlite') {
    const list = (await knex.raw('pragma index_list(notes)')) as { name: string }[];
    indexes = list.map((i) => i.name).filter((n) => !n.startsWith('sqlite_autoindex'));
    const fks = (await knex.raw('pragma foreign_key_list(notes)')) as {
      from: string;
      table: string;
      on_delete: string;
    }[];
    keys = fks.map((k) => `${k.from}>${k.table}:${k.on_delete}`);
  } else if (db.dialect === 'postgres') {
    const list = await knex.raw(
      "select indexname as name from pg_indexes where tablename = 'notes' and indexname <> 'notes_pkey'",
    );
    indexes = (list.rows as { name: string }[]).map((i) => i.name);
    const fks = await knex.raw(
      `select a.attname as "from", c.confrelid::regclass::text as "table",
        case c.confdeltype when 'r' then 'RESTRICT' when 'c' then 'CASCADE' when 'n' then 'SET NULL' else 'NO ACTION' end as "onDelete"
       from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
       where c.conrelid = 'notes'::regclass and c.contype = 'f'`,
    );
    keys = (fks.rows as { from: string; table: string; onDelete: string }[]).map(
      (k) => `${k.from}>${k.table}:${k.onDelete}`,
    );
  } else {
    const [list] = (await knex.raw(
      "select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = 'notes' and index_name <> 'PRIMARY'",
    )) as [{ name: string }[]];
    indexes = list.map((i) => i.name);
    const [fks] = (await knex.raw(
      `select k.column_name as "from", k.referenced_table_name as "table", r.delete_rule as "onDelete"
       from information_schema.key_column_usage k join information_schema.referential_constraints r
         on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name
       where k.table_schema = database() and k.table_name = 'notes'`,
    )) as [{ from: string; table: string; onDelete: string }[]];
    keys = fks.map((k) => `${k.from}>${k.table}:${k.onDelete}`);
  }
  return {
    columns,
    indexes: indexes.sort(),
    keys: keys.sort(),
    joinTable: await knex.schema.hasTable('note_tags'),
  };
}

/** As a generated app migrates: with SQLite's foreign keys off (db.ts), on again to serve. */
async function migrating(db: DatabaseHandle, run: () => Promise<void>): Promise<void> {
  if (db.dialect === 'sqlite') await db.knex.raw('PRAGMA foreign_keys = OFF');
  try {
    await run();
  } finally {
    if (db.dialect === 'sqlite') await db.knex.raw('PRAGMA foreign_keys = ON');
  }
}

describe('upgrading a slice through relation changes: the migrations', () => {
  it('add the column, its index and its foreign key; the join table; indexes renamed with their column', () => {
    const read = (n: number) =>
      readFileSync(join(dir, 'migrations', versions[n]!.migration), 'utf8').replace(/\s+/g, ' ');
    const reference = read(1);
    expect(reference).to.contain("table.uuid('customer_id');");
    expect(reference).to.contain("table.index(['customer_id']);");
    expect(reference).to.contain(
      "table.foreign('customer_id').references('id').inTable('customers').onDelete('RESTRICT');",
    );
    expect(reference).to.contain("table.dropForeign(['customer_id']);");
    expect(read(2)).to.contain("await knex.schema.createTable('note_tags', (table) => {");
    expect(read(2)).to.contain("await knex.schema.dropTable('note_tags');");
    const rebuild = read(3);
    expect(rebuild).to.contain("await knex.schema.createTable('_notes_rebuild', (table) => {");
    expect(rebuild).to.contain(
      "table.foreign('customer_id').references('id').inTable('customers').onDelete('RESTRICT'); });",
    );
    const rename = read(4);
    const renamed = rename.indexOf("table.renameColumn('code', 'ref');");
    const dropped = rename.indexOf(
      "await uniqueIndexMigration({ table: 'notes', column: 'code' }).down(knex);",
    );
    expect(dropped).to.be.within(0, renamed);
    expect(
      rename.indexOf("await uniqueIndexMigration({ table: 'notes', column: 'ref' }).up(knex);"),
    ).to.be.greaterThan(renamed);
    const schema = JSON.parse(
      readFileSync(join(dir, '.slicekit/slices/notes/schema.json'), 'utf8'),
    );
    expect(schema.foreignKeys).to.deep.equal([
      { column: 'parent_id', table: 'notes', onDelete: 'RESTRICT' },
    ]);
    expect(schema.joinTables).to.deep.equal([]);
  });
});

describeEachDatabase('upgrading a slice through relation changes', (db) => {
  let customers: string[] = [];
  let tags: string[] = [];
  let notes: string[] = [];

  before(async function () {
    this.timeout(60_000);
    await migrating(db, async () => {
      for (const file of createMigrations) await (await load(file)).up(db.knex);
    });
    const app = await appOf(versions[0]!.slices, db.knex);
    const post = async (path: string, body: object) => {
      const res = await request(app).post(path).send(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id as string;
    };
    customers = [
      await post('/v1/customers', { name: 'Ada' }),
      await post('/v1/customers', { name: 'Bo' }),
    ];
    tags = [await post('/v1/tags', { label: 'red' }), await post('/v1/tags', { label: 'blue' })];
    notes = [];
    for (const [title, code] of [
      ['First note', 'N-1'],
      ['Second note', 'N-2'],
      ['Third note', null],
    ] as const) {
      notes.push(await post('/v1/notes', { title, code }));
    }
  });

  for (const [i, step] of steps.entries()) {
    it(`${step.name}: migrates, keeps the rows, answers over HTTP, and down restores the schema`, async function () {
      this.timeout(60_000);
      const version = versions[i + 1]!;
      const migration = await load(version.migration);
      const before = await shape(db);
      await migrating(db, () => migration.up(db.knex));
      const after = await shape(db);
      const titles = await db.knex('notes').whereIn('id', notes).orderBy('title').pluck('title');
      expect(titles).to.deep.equal(['First note', 'Second note', 'Third note']);
      const app = await appOf(version.slices, db.knex);
      const old = await request(app).get(`/v1/notes/${notes[0]}`);
      expect(old.status, JSON.stringify(old.body)).to.equal(200);
      expect(old.body.title).to.equal('First note');
      const made: string[] = [];
      const create = async (body: Record<string, unknown>, status = 201) => {
        const res = await request(app).post('/v1/notes').send(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        if (status === 201) made.push(res.body.id as string);
        return res.body as Record<string, unknown>;
      };
      switch (i) {
        case 0: {
          expect(after.keys).to.deep.equal(['customer_id>customers:RESTRICT']);
          expect(after.indexes).to.include('notes_customer_id_index');
          expect(old.body.customerId).to.equal(null);
          const note = await create({ title: 'Of Ada', customerId: customers[0] });
          expect(note['customerId']).to.equal(customers[0]);
          const refused = await create({ title: 'Of nobody', customerId: MISSING }, 422);
          expect(refused['code']).to.equal('crud.invalid_reference');
          break;
        }
        case 1: {
          expect(after.joinTable).to.equal(true);
          expect(old.body.tags).to.deep.equal([]);
          expect(old.body.customerId).to.equal(customers[1]);
          const note = await create({ title: 'Tagged', tagIds: [tags[0], tags[1]] });
          const ids = (note['tags'] as { id: string }[]).map((t) => t.id);
          expect(ids.sort()).to.deep.equal([tags[0], tags[1]].sort());
          const refused = await create({ title: 'Badly tagged', tagIds: [MISSING] }, 422);
          expect(refused['code']).to.equal('crud.invalid_reference');
          break;
        }
        case 2: {
          expect(after.keys).to.deep.equal(before.keys);
          expect(after.indexes).to.deep.equal(before.indexes);
          expect(old.body.customerId).to.equal(customers[1]);
          expect(old.body.tags).to.deep.equal([{ id: tags[0], label: 'red' }]);
          await db.knex('notes').where({ id: notes[2] }).update({ status: 'archived' });
          const third = await request(app).get(`/v1/notes/${notes[2]}`);
          expect(third.body.status).to.equal('archived');
          await db.knex('notes').where({ id: notes[2] }).update({ status: 'draft' });
          await create({ title: 'Of Ada', customerId: customers[0] });
          const refused = await create({ title: 'Of nobody', customerId: MISSING }, 422);
          expect(refused['code']).to.equal('crud.invalid_reference');
          break;
        }
        case 3: {
          expect(after.indexes).to.include('notes_ref_unique');
          expect(after.indexes).not.to.include('notes_code_unique');
          expect(after.indexes).to.include('notes_client_id_index');
          expect(after.keys).to.deep.equal(['client_id>customers:RESTRICT']);
          expect(old.body.ref).to.equal('N-1');
          expect(old.body).not.to.have.property('code');
          expect(old.body.clientId).to.equal(customers[1]);
          expect(old.body).not.to.have.property('customerId');
          const refused = await create({ title: 'Of nobody', clientId: MISSING }, 422);
          expect(refused['code']).to.equal('crud.invalid_reference');
          expect(old.body.tags).to.deep.equal([{ id: tags[0], label: 'red' }]);
          const duplicate = await create({ title: 'Same ref', ref: 'N-1' }, 409);
          expect(duplicate['code']).to.be.a('string');
          break;
        }
        case 4: {
          expect(after.indexes).not.to.include('notes_ref_unique');
          await create({ title: 'Same ref', ref: 'N-1' });
          break;
        }
        case 5: {
          expect(after.keys).to.deep.equal([]);
          expect(after.joinTable).to.equal(false);
          expect(after.columns).not.to.include('client_id');
          expect(old.body).not.to.have.property('clientId');
          expect(old.body).not.to.have.property('tags');
          await create({ title: 'Plain again', ref: 'N-9' });
          break;
        }
        case 6: {
          expect(after.keys).to.deep.equal(['parent_id>notes:RESTRICT']);
          expect(old.body.parentId).to.equal(null);
          const child = await create({ title: 'A child', parentId: notes[0] });
          expect(child['parentId']).to.equal(notes[0]);
          const children = await request(app).get(`/v1/notes/${notes[0]}/children`);
          expect(children.status, JSON.stringify(children.body)).to.equal(200);
          expect(JSON.stringify(children.body)).to.contain(child['id'] as string);
          const refused = await create({ title: 'An orphan', parentId: MISSING }, 422);
          expect(refused['code']).to.equal('crud.invalid_reference');
          break;
        }
      }
      if (made.length) {
        if (after.joinTable) await db.knex('note_tags').whereIn('note_id', made).delete();
        await db.knex('notes').whereIn('id', made).delete();
      }
      await migrating(db, () => migration.down(db.knex));
      expect(await shape(db)).to.deep.equal(before);
      if (i === 5) {
        // The references come back empty: the values were dropped.
        const [row] = await db.knex('notes').where({ id: notes[0] }).select('client_id');
        expect(row.client_id).to.equal(null);
      }
      await migrating(db, () => migration.up(db.knex));
      expect(await shape(db)).to.deep.equal(after);
      // An existing row takes a reference, and a link, for the next steps to keep.
      if (i === 0) {
        await db.knex('notes').where({ id: notes[0] }).update({ customer_id: customers[1] });
      }
      if (i === 1) await db.knex('note_tags').insert({ note_id: notes[0], tag_id: tags[0] });
    });
  }

  it('adds a required reference, once accepted, to an empty table, and fails on one with rows', async () => {
    const migration = await load(taskMigration);
    await migrating(db, () => migration.up(db.knex));
    const info = await db.knex('tasks').columnInfo();
    expect(info['customer_id']?.nullable).to.equal(false);
    const row = { title: 'A task', created_on: new Date(), updated_on: new Date() };
    const insert = (id: string, customerId?: string) =>
      db
        .knex('tasks')
        .insert({ ...row, id, ...(customerId ? { customer_id: customerId } : {}) })
        .then(
          () => 'inserted',
          () => 'refused',
        );
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    expect(await insert(ids[0]!, MISSING)).to.equal('refused');
    expect(await insert(ids[0]!)).to.equal('refused');
    expect(await insert(ids[0]!, customers[0])).to.equal('inserted');
    await db.knex('tasks').delete();
    await migrating(db, () => migration.down(db.knex));
    expect(await db.knex.schema.hasColumn('tasks', 'customer_id')).to.equal(false);
    await db.knex('tasks').insert({ ...row, id: ids[1] });
    const failed = await migrating(db, () => db.knex.transaction((trx) => migration.up(trx))).then(
      () => 'migrated',
      () => 'failed',
    );
    expect(failed).to.equal('failed');
  });
});
