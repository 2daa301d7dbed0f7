// Upgrading a slice the app has already, without a database: base copies, the ALTER migration's
// file, the three-way merge that keeps a user's edits, conflicts, refused data loss, the dry run,
// --force, and an app generated before base copies existed.
import { expect } from 'chai';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { DataLossError } from '../../generators/upgrade/errors.js';

const SPEC = 'src/slices/notes/note.entity.yaml';
const v0 = [
  'entity: Note',
  'fields:',
  '  title: { type: string, required: true, maxLength: 100 }',
  '  legacy: { type: integer }',
  'updates:',
  '  - { name: Retitle, parameters: [title] }',
  '',
].join('\n');
const withSummary = v0.replace(
  '  legacy:',
  '  summary: { type: string, maxLength: 200 }\n  legacy:',
);

async function run(dir: string, answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions(answers);
}

describe('upgrading a slice', () => {
  let dir: string;
  let cwd: string;
  const read = (path: string) => readFileSync(join(dir, path), 'utf8');
  const migrations = () => readdirSync(join(dir, 'migrations')).sort();
  const upgrade = (spec: string, answers: Record<string, unknown> = {}) => {
    writeFileSync(join(dir, SPEC), spec);
    return run(dir, { specFile: join(dir, SPEC), now: '2025-02-03T04:05:06Z', ...answers });
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-upgrade-'));
    cwd = process.cwd();
    const spec = join(dir, 'note.yaml');
    writeFileSync(spec, v0);
    const result = await run(dir, { specFile: spec, now: '2024-05-01T09:30:00Z' });
    expect(result.failures).to.deep.equal([]);
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a base copy of what it wrote, and the table it made', () => {
    for (const path of ['src/slices/notes/note.entity.ts', 'test/notes.test.ts', SPEC]) {
      expect(read(`.slicekit/slices/notes/files/${path}`)).to.equal(read(path));
    }
    expect(existsSync(join(dir, '.slicekit/slices/notes/files/migrations'))).to.equal(false);
    const schema = JSON.parse(read('.slicekit/slices/notes/schema.json'));
    expect(schema.table).to.equal('notes');
    expect(schema.columns.map((c: { name: string }) => c.name)).to.include.members([
      'title',
      'legacy',
    ]);
  });

  it('changes nothing when the spec has not changed', async () => {
    const result = await upgrade(v0);
    expect(result.failures).to.deep.equal([]);
    expect(
      result.changes.map((c) => c.path).filter((p) => !p.startsWith('[SKIPPED]')),
    ).to.deep.equal([]);
    expect(migrations()).to.deep.equal(['20240501093000_create_notes.ts']);
  });

  it('adds a field: an ALTER migration, and the user edits of the files kept', async () => {
    const entity = 'src/slices/notes/note.entity.ts';
    writeFileSync(
      join(dir, entity),
      read(entity).replace('this.title = title;\n  }', 'this.title = title.trim();\n  }'),
    );
    const tests = 'test/notes.test.ts';
    writeFileSync(
      join(dir, tests),
      read(tests).replace(
        /\n}\);\n$/,
        "\n\n  it('is mine', () => {\n    expect(1).to.equal(1);\n  });\n});\n",
      ),
    );
    const result = await upgrade(withSummary);
    expect(result.failures).to.deep.equal([]);
    expect(migrations()).to.deep.equal([
      '20240501093000_create_notes.ts',
      '20250203040506_alter_notes.ts',
    ]);
    const migration = read('migrations/20250203040506_alter_notes.ts');
    expect(migration).to.contain("table.string('summary', 200);");
    expect(migration).to.contain("table.dropColumn('summary');");
    expect(read(entity)).to.contain('this.title = title.trim();');
    expect(read(entity)).to.contain('summary: string | null;');
    expect(read(tests)).to.contain("it('is mine'");
    expect(read('src/slices/notes/note.table.ts')).to.contain('summary');
    const merged = result.changes.map((c) => c.path).filter((p) => p.startsWith('[MERGED]'));
    expect(merged).to.include.members([`[MERGED] ${entity}`, `[MERGED] ${tests}`]);
    expect(read(`.slicekit/slices/notes/files/${entity}`)).not.to.contain('trim()');
    // The create migration is never rewritten.
    expect(read('migrations/20240501093000_create_notes.ts')).not.to.contain('summary');
  });

  it('marks a collision, lists it and fails', async () => {
    const table = 'src/slices/notes/note.table.ts';
    writeFileSync(
      join(dir, table),
      read(table).replace("legacy: 'integer',", "legacy: 'decimal',"),
    );
    const result = await upgrade(withSummary);
    expect(result.failures).to.have.length(1);
    expect(result.failures[0]!.error).to.contain(`${table}: 1 conflict`);
    expect(read(table)).to.match(/<<<<<<< yours\n[^]*=======\n[^]*>>>>>>> generated\n/);
    expect(read(table)).to.contain("legacy: 'decimal'");
    // Everything else is written.
    expect(migrations()).to.have.length(2);
  });

  it('refuses a change that loses data until it is accepted', async () => {
    const dropped = v0.replace('  legacy: { type: integer }\n', '');
    const error = await upgrade(dropped).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(DataLossError);
    expect((error as Error).message).to.contain('legacy is dropped: every row loses its value');
    expect((error as Error).message).to.contain('--accept-data-loss');
    expect(migrations()).to.have.length(1);
    const accepted = await upgrade(dropped, { 'accept-data-loss': true });
    expect(accepted.failures).to.deep.equal([]);
    expect(read('migrations/20250203040506_alter_notes.ts')).to.contain(
      "table.dropColumn('legacy');",
    );
  });

  it('names the data at risk of each destructive change, and how to keep it', async () => {
    const risky = [
      'entity: Note',
      'fields:',
      '  title: { type: string, required: true, maxLength: 50 }',
      '  legacy: { type: integer, required: true }',
      '  kind: { type: string, required: true }',
      'updates:',
      '  - { name: Retitle, parameters: [title] }',
      '',
    ].join('\n');
    const error = await upgrade(risky).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(DataLossError);
    expect((error as DataLossError).risks.map((r) => `${r.column} ${r.risk}`)).to.deep.equal([
      'title maxLength narrows from 100 to 50: longer values are cut to 50 characters',
      'legacy becomes required without a default: rows without a value make the migration fail',
      'kind is added as required without a default: the rows the table holds have no value for it',
    ]);
    expect((error as Error).message).to.contain('give the field a default');
    expect(migrations()).to.have.length(1);
  });

  it('refuses renamedFrom naming a column the table never had', async () => {
    const error = await upgrade(
      v0.replace(
        '  legacy: { type: integer }',
        '  legacy: { type: integer }\n  older: { type: integer, renamedFrom: ancient }',
      ),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).to.contain(
      'fields.older.renamedFrom: the notes table has no column ancient to rename',
    );
  });

  it('prints the plan and the SQL per database on a dry run, and writes nothing', async () => {
    const before = read('src/slices/notes/note.entity.ts');
    const result = await upgrade(withSummary, { 'dry-run': true });
    expect(result.failures).to.deep.equal([]);
    const plan = result.changes[0]!.path;
    expect(plan).to.contain('dry run: nothing is written');
    expect(plan).to.match(/update.*src\/slices\/notes\/note\.entity\.ts/);
    expect(plan).to.contain('alter table `notes` add column `summary` varchar(200)');
    expect(plan).to.contain('alter table "notes" add column "summary" varchar(200)');
    expect(plan).to.contain('alter table `notes` add `summary` varchar(200)');
    expect(read('src/slices/notes/note.entity.ts')).to.equal(before);
    expect(migrations()).to.have.length(1);
  });

  it('overwrites with --force, still writing the migration and never the create one', async () => {
    const entity = 'src/slices/notes/note.entity.ts';
    writeFileSync(join(dir, entity), '// mine\n');
    const result = await upgrade(withSummary, { force: true });
    expect(result.failures).to.deep.equal([]);
    expect(read(entity)).to.contain('summary: string | null;');
    expect(migrations()).to.deep.equal([
      '20240501093000_create_notes.ts',
      '20250203040506_alter_notes.ts',
    ]);
  });

  it('upgrades an app without base copies from the earlier spec', async () => {
    rmSync(join(dir, '.slicekit'), { recursive: true });
    const entity = 'src/slices/notes/note.entity.ts';
    writeFileSync(
      join(dir, entity),
      read(entity).replace('this.title = title;\n  }', 'this.title = title.trim();\n  }'),
    );
    const earlier = join(dir, 'note.yaml');
    const result = await upgrade(withSummary, { base: earlier });
    expect(result.failures).to.deep.equal([]);
    expect(read(entity)).to.contain('this.title = title.trim();');
    expect(read(entity)).to.contain('summary: string | null;');
    expect(read('migrations/20250203040506_alter_notes.ts')).to.contain("'summary'");
    expect(existsSync(join(dir, '.slicekit/slices/notes/schema.json'))).to.equal(true);
  });

  it('documents every error code of the upgrade in docs/evolving-entities.md', () => {
    const root = join(import.meta.dirname, '..', '..');
    const text = readFileSync(join(root, 'generators/upgrade/errors.ts'), 'utf8');
    const codes = [...text.matchAll(/'(upgrade\.[a-z_]+)'/g)].map((m) => m[1]!);
    expect(codes).to.deep.equal(['upgrade.data_loss', 'upgrade.conflicts']);
    const docs = readFileSync(join(root, 'docs/evolving-entities.md'), 'utf8');
    expect(codes.filter((code) => !docs.includes(`\`${code}\``))).to.deep.equal([]);
  });
});

describe('upgrading a slice with relations', () => {
  let dir: string;
  const read = (path: string) => readFileSync(join(dir, path), 'utf8');
  const migrations = () => readdirSync(join(dir, 'migrations')).sort();
  const NOTE = [
    'entity: Note',
    'fields:',
    '  title: { type: string, required: true, maxLength: 100 }',
    '  customer: { type: reference, entity: Customer }',
    '  tags: { type: reference, entity: Tag, many: true }',
    '',
  ].join('\n');
  /** `spec` with `field` (one line of YAML, `name: { ... }`) as its first field. */
  const withField = (spec: string, field: string) =>
    spec.replace('fields:\n', `fields:\n  ${field}\n`);
  const upgrade = (spec: string, answers: Record<string, unknown> = {}) => {
    writeFileSync(join(dir, SPEC), spec);
    return run(dir, { specFile: join(dir, SPEC), now: '2025-02-03T04:05:06Z', ...answers });
  };
  const refusal = (spec: string) =>
    upgrade(spec).then(
      () => undefined,
      (e: unknown) => e as DataLossError,
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-upgrade-'));
    const specs = join(dir, 'specs');
    mkdirSync(specs);
    for (const entity of ['Customer', 'Supplier', 'Tag']) {
      writeFileSync(
        join(specs, `${entity.toLowerCase()}.yaml`),
        `entity: ${entity}\nfields:\n  name: { type: string, required: true, maxLength: 80 }\n`,
      );
    }
    writeFileSync(join(specs, 'note.yaml'), NOTE);
    const result = await run(dir, { specFile: specs, now: '2024-05-01T09:30:00Z' });
    expect(result.failures).to.deep.equal([]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records the foreign keys and join tables in schema.json', () => {
    const schema = JSON.parse(read('.slicekit/slices/notes/schema.json'));
    expect(schema.foreignKeys).to.deep.equal([
      { column: 'customer_id', table: 'customers', onDelete: 'RESTRICT' },
    ]);
    expect(schema.joinTables.map((j: { table: string }) => j.table)).to.deep.equal(['note_tags']);
  });

  it('prints the foreign key each database adds on a dry run', async () => {
    const result = await upgrade(
      withField(NOTE, 'supplier: { type: reference, entity: Supplier }'),
      { 'dry-run': true },
    );
    const plan = result.changes[0]!.path;
    expect(plan).to.contain('+ foreign key (supplier_id) -> suppliers');
    // SQLite rebuilds the table to add a foreign key.
    expect(plan).to.match(
      /CREATE TABLE `_knex_temp_alter\d+` .*FOREIGN KEY \(`supplier_id`\) REFERENCES `suppliers` \(`id`\) ON DELETE RESTRICT\);\n/,
    );
    expect(plan).to.contain(
      'alter table "notes" add constraint "notes_supplier_id_foreign" foreign key ("supplier_id") references "suppliers" ("id") on delete RESTRICT',
    );
    expect(plan).to.contain(
      'alter table `notes` add constraint `notes_supplier_id_foreign` foreign key (`supplier_id`) references `suppliers` (`id`) on delete RESTRICT',
    );
    expect(plan).not.to.match(/BEGIN|COMMIT|;;/);
    expect(migrations()).to.have.length(4);
  });

  it('stamps the upgrade after the create migration of an entity it now references, made in the same run', async () => {
    const specs = join(dir, 'next');
    mkdirSync(specs);
    writeFileSync(
      join(specs, 'vendor.yaml'),
      'entity: Vendor\nfields:\n  name: { type: string, required: true, maxLength: 80 }\n',
    );
    writeFileSync(
      join(specs, 'note.yaml'),
      withField(NOTE, 'vendor: { type: reference, entity: Vendor }'),
    );
    // No `now`: the run's own clock, as on the command line.
    const result = await run(dir, { specFile: specs });
    expect(result.failures).to.deep.equal([]);
    const added = migrations().filter((m) => /_(create_vendors|alter_notes)\.ts$/.test(m));
    expect(added.map((m) => m.replace(/^\d+_/, ''))).to.deep.equal([
      'create_vendors.ts',
      'alter_notes.ts',
    ]);
  });

  it('refuses a required reference added to a table that may hold rows, naming the way out', async () => {
    const error = await refusal(
      withField(NOTE, 'supplier: { type: reference, entity: Supplier, required: true }'),
    );
    expect(error).to.be.instanceOf(DataLossError);
    expect(error!.risks.map((r) => r.column)).to.deep.equal(['supplier_id']);
    expect(error!.message).to.contain('add the reference optional (required: false)');
    const required = await refusal(
      NOTE.replace('entity: Customer }', 'entity: Customer, required: true }'),
    );
    expect(required!.message).to.contain(
      'customer_id becomes a required reference: rows referring to no row make the migration fail',
    );
  });

  it('refuses a many-to-many added as required, or made required, on a table that may hold rows', async () => {
    const added = await refusal(
      withField(
        NOTE,
        'suppliers: { type: reference, entity: Supplier, many: true, required: true }',
      ),
    );
    expect(added).to.be.instanceOf(DataLossError);
    expect(added!.risks.map((r) => r.column)).to.deep.equal(['note_suppliers']);
    expect(added!.message).to.contain(
      'note_suppliers (the join table of a required many-to-many to suppliers) is added: the rows the table holds that link to no row of suppliers break the rule',
    );
    expect(added!.message).to.contain('add the many-to-many optional (required: false)');
    const required = NOTE.replace('many: true }', 'many: true, required: true }');
    const made = await refusal(required);
    expect(made!.risks.map((r) => r.column)).to.deep.equal(['note_tags']);
    expect(made!.message).to.contain(
      '(the join table of a required many-to-many to tags) is made required',
    );
    expect(migrations()).to.have.length(4);
    // Once accepted, a later change of the entity is not refused for it again.
    expect((await upgrade(required, { 'accept-data-loss': true })).failures).to.deep.equal([]);
    const later = await upgrade(withField(required, 'summary: { type: string, maxLength: 200 }'), {
      now: '2025-02-04T04:05:06Z',
    });
    expect(later.failures).to.deep.equal([]);
    expect(migrations()).to.have.length(5);
  });

  it('changes what a delete does by making the foreign key again, without a refusal', async () => {
    const result = await upgrade(
      NOTE.replace('entity: Customer }', 'entity: Customer, onDelete: cascade }'),
    );
    expect(result.failures).to.deep.equal([]);
    const migration = read('migrations/20250203040506_alter_notes.ts').replace(/\s+/g, ' ');
    expect(migration).to.contain("table.dropForeign(['customer_id']);");
    expect(migration).to.contain(
      "table.foreign('customer_id').references('id').inTable('customers').onDelete('CASCADE');",
    );
    expect(migration).not.to.contain('dropColumn');
  });

  it('renames a reference: its foreign key and index go under the old name and come back under the new', async () => {
    const result = await upgrade(
      NOTE.replace(
        'customer: { type: reference, entity: Customer }',
        'client: { type: reference, entity: Customer, renamedFrom: customer }',
      ),
    );
    expect(result.failures).to.deep.equal([]);
    const migration = read('migrations/20250203040506_alter_notes.ts').replace(/\s+/g, ' ');
    const up = migration.slice(0, migration.indexOf('export async function down'));
    const at = (text: string) => {
      expect(up).to.contain(text);
      return up.indexOf(text);
    };
    const order = [
      at("table.dropForeign(['customer_id']);"),
      at("table.dropIndex(['customer_id']);"),
      at("table.renameColumn('customer_id', 'client_id');"),
      at("table.index(['client_id']);"),
      at("table.foreign('client_id').references('id').inTable('customers')"),
    ];
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
  });

  it('refuses a reference moved to another entity: the ids name rows of the old one', async () => {
    const error = await refusal(NOTE.replace('entity: Customer }', 'entity: Supplier }'));
    expect(error).to.be.instanceOf(DataLossError);
    expect(error!.message).to.contain('customer_id refers to suppliers instead of customers');
  });

  it('upgrades an app without base copies from an earlier spec with relations, adding none again', async () => {
    rmSync(join(dir, '.slicekit'), { recursive: true });
    const earlier = join(dir, 'specs/note.yaml');
    const result = await upgrade(withField(NOTE, 'summary: { type: string, maxLength: 200 }'), {
      base: earlier,
    });
    expect(result.failures).to.deep.equal([]);
    const migration = read('migrations/20250203040506_alter_notes.ts');
    expect(migration).to.contain("table.string('summary', 200);");
    expect(migration).not.to.contain('foreign');
    expect(migration).not.to.contain('note_tags');
    const schema = JSON.parse(read('.slicekit/slices/notes/schema.json'));
    expect(schema.foreignKeys.map((k: { column: string }) => k.column)).to.deep.equal([
      'customer_id',
    ]);
  });

  it('prints the join table a removed many-to-many drops, on each database', async () => {
    const result = await upgrade(
      NOTE.replace('  tags: { type: reference, entity: Tag, many: true }\n', ''),
      { 'dry-run': true },
    );
    const plan = result.changes[0]!.path;
    expect(plan).to.contain('- join table note_tags');
    expect(plan).to.contain('drop table `note_tags`;');
    expect(plan).to.contain('drop table "note_tags";');
    expect(plan).to.contain('note_tags (the join table of a many-to-many to tags) is dropped');
  });

  it('takes the relations of a schema.json that did not record them from the saved spec', async () => {
    const file = join(dir, '.slicekit/slices/notes/schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    delete schema.foreignKeys;
    delete schema.joinTables;
    writeFileSync(file, JSON.stringify(schema));
    const result = await upgrade(withField(NOTE, 'summary: { type: string, maxLength: 200 }'));
    expect(result.failures).to.deep.equal([]);
    const migration = read('migrations/20250203040506_alter_notes.ts');
    expect(migration).to.contain("table.string('summary', 200);");
    expect(migration).not.to.contain('foreign');
    expect(migration).not.to.contain('note_tags');
  });
});
