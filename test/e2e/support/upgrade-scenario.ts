// Upgrading a slice in a generated app, through the real CLI, on one database: the user edits the
// entity and its tests, changes the saved spec, previews with --dry-run, upgrades, migrates, adds a
// reference to an entity generated later, and the app's own tests, tsc, ESLint and Prettier pass;
// a collision then fails the command and names the file. test/e2e/upgrade-<database>.test.ts run
// it on SQLite, PostgreSQL and MySQL, each a file of its own so that the three run side by side.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { productSpec } from '../../../scripts/generate.js';
import { useDatabase, type DatabaseHandle, type Dialect } from '../../support/services.js';
import { run } from './processes.js';
import { appEnv, plainEnv, repoRoot, scratchFolder } from './workspace.js';

const node = process.execPath;
const plop = join(repoRoot, 'node_modules/plop/bin/plop.js');
const SPEC = 'src/slices/products/product.entity.yaml';
const ENTITY = 'src/slices/products/product.entity.ts';
const TESTS = 'test/products.test.ts';
const NESTED = 'admin/src/nested.tsx';
const ACTIONS = 'admin/src/actions.tsx';
const RESTORE = 'admin/src/restore.tsx';
const ROW_ROUTE = 'admin/src/row-route.ts';

/** What a command that must fail printed, or 'exited 0' when it did not fail. */
const failureOf = (command: Promise<unknown>) =>
  command.then(
    () => 'exited 0',
    (error: Error) => error.message,
  );

/** A quoted identifier as the dialect's dry run prints it. */
const q = (db: DatabaseHandle, name: string) =>
  db.dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;

/** The table `products` refers to and what deleting that row does, as the database reports it. */
async function foreignKeyOfProducts(db: DatabaseHandle): Promise<string> {
  if (db.dialect === 'sqlite') {
    // (sqlite_master, not a pragma: this connection's schema was read before another one migrated.)
    const [table] = (await db.knex.raw(
      "select sql from sqlite_master where type = 'table' and name = 'products'",
    )) as { sql: string }[];
    const found = /FOREIGN KEY \(`category_id`\) REFERENCES `(\w+)` \(`id`\) ON DELETE (\w+)/.exec(
      table!.sql,
    );
    return found ? `${found[1]} ${found[2]}` : 'none';
  }
  if (db.dialect === 'postgres') {
    const { rows } = (await db.knex.raw(
      "select confrelid::regclass::text as ref, confdeltype as rule from pg_constraint where conrelid = 'products'::regclass and contype = 'f'",
    )) as { rows: { ref: string; rule: string }[] };
    return rows.map((r) => `${r.ref} ${r.rule === 'r' ? 'RESTRICT' : r.rule}`).join(', ') || 'none';
  }
  const [rows] = (await db.knex.raw(
    "select referenced_table_name as ref, delete_rule as rule from information_schema.referential_constraints where constraint_schema = database() and table_name = 'products'",
  )) as [{ ref: string; rule: string }[]];
  return rows.map((r) => `${r.ref} ${r.rule}`).join(', ') || 'none';
}

/** The upgrade scenario on `dialect`, one test file per database (they run in parallel). */
export function describeUpgrade(dialect: Dialect): void {
  describe(`upgrading a slice in a generated app on ${dialect}`, function () {
    this.timeout(180_000);
    const db = useDatabase(dialect);
    let scratch: ReturnType<typeof scratchFolder>;
    let app: string;
    const read = (path: string) => readFileSync(join(app, path), 'utf8');
    const write = (path: string, text: string) => writeFileSync(join(app, path), text);
    /** Replaces `from` in the app's file at `path`, as a user's editor would. */
    const edit = (path: string, from: string | RegExp, to: string) =>
      write(path, read(path).replace(from, to));
    const env = () => appEnv({ DATABASE_URL: db.url });
    const entity = (...args: string[]) =>
      run(node, [plop, 'entity', '--', '--spec', ...args], { cwd: app, env: plainEnv() });
    // The entities' migrations, without the app's own (the outbox, the idempotency keys...).
    const migrations = () =>
      readdirSync(join(app, 'migrations'))
        .filter((name) => !name.includes('_slicekit_'))
        .sort();

    before(async () => {
      scratch = scratchFolder('upgrade');
      app = join(scratch.path, 'shop');
      await run(
        node,
        [join(repoRoot, 'bin/slicekit.js'), 'new', app, '--database', dialect, '-y'],
        {
          cwd: scratch.path,
          env: plainEnv(),
        },
      );
      await entity(productSpec);
      await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
      await run('npm', ['run', 'seed'], { cwd: app, env: env() });
    });
    after(() => scratch?.remove());

    it('keeps the base copy of the slice, and the README says to commit it', () => {
      expect(read(`.slicekit/slices/products/files/${ENTITY}`)).to.equal(read(ENTITY));
      expect(read('README.md')).to.contain('.slicekit/');
    });

    it('previews an added field with --dry-run and writes nothing', async () => {
      edit(ENTITY, 'this.price = price;', 'this.price = Math.round(price * 100) / 100;');
      edit(
        TESTS,
        /\n\}\);\n$/,
        "\n\n  it('keeps a test of my own', () => {\n    expect(1 + 1).to.equal(2);\n  });\n});\n",
      );
      edit(SPEC, 'fields:\n', 'fields:\n  note: { type: string, maxLength: 200 }\n');
      // The admin as an earlier slicekit made it: no nested links, no restore.tsx nor the
      // row-route.ts it imports, and an actions.tsx of the user's own, without RestoreButton.
      for (const module of [NESTED, RESTORE, ROW_ROUTE]) rmSync(join(app, module));
      edit(ACTIONS, /^/, '// My actions.\n');
      const before = read(ENTITY);
      const output = await entity(SPEC, '--dry-run');
      expect(output).to.contain('dry run: nothing is written');
      for (const module of [NESTED, RESTORE, ROW_ROUTE]) {
        expect(output).to.contain(` ${module} (the admin pages import it)`);
      }
      expect(output).not.to.contain(ACTIONS);
      expect(existsSync(join(app, NESTED))).to.equal(false);
      const addColumn = dialect === 'mysql' ? 'add' : 'add column';
      expect(output).to.contain(
        `alter table ${q(db, 'products')} ${addColumn} ${q(db, 'note')} varchar(200)`,
      );
      expect(read(ENTITY)).to.equal(before);
      expect(migrations()).to.have.length(1);
    });

    it('upgrades: a migration, the edits kept, and the app migrates with its rows', async () => {
      const [{ count }] = (await db.knex('products').count({ count: '*' })) as [{ count: unknown }];
      const upgrade = await entity(SPEC);
      expect(migrations()).to.have.length(2);
      // The missing admin modules added as a new app has them; the user's own one kept as it is:
      // a page's RestoreButton comes from restore.tsx (the admin type-checks: the last test).
      for (const module of [NESTED, RESTORE, ROW_ROUTE]) {
        expect(read(module)).to.equal(
          readFileSync(join(repoRoot, 'templates/app', module), 'utf8'),
        );
      }
      expect(read(ACTIONS)).to.match(/^\/\/ My actions\.\n/);
      expect(read(ACTIONS)).not.to.contain('RestoreButton');
      expect(upgrade).not.to.contain(ACTIONS);
      expect(read(ENTITY)).to.contain('Math.round(price * 100) / 100;');
      expect(read(ENTITY)).to.contain('note: string | null;');
      expect(read(TESTS)).to.contain('keeps a test of my own');
      await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
      const after = (await db.knex('products').count({ count: '*' })) as [{ count: unknown }];
      expect(Number(after[0].count)).to.equal(Number(count));
      expect(await db.knex.schema.hasColumn('products', 'note')).to.equal(true);
    });

    it('adds a reference to an entity generated after it: column, index, foreign key', async () => {
      const category = join(scratch.path, 'category.yaml');
      writeFileSync(
        category,
        // Soft-deleting: its admin page imports RestoreButton, from the restore.tsx added above.
        'entity: Category\nsoftDelete: true\nfields:\n  name: { type: string, required: true, maxLength: 80 }\n',
      );
      await entity(category);
      edit(SPEC, 'fields:\n', 'fields:\n  category: { type: reference, entity: Category }\n');
      const output = await entity(SPEC, '--dry-run');
      expect(output).to.contain(
        `add constraint ${q(db, 'products_category_id_foreign')} foreign key (${q(db, 'category_id')}) references ${q(db, 'categories')} (${q(db, 'id')}) on delete RESTRICT`,
      );
      await entity(SPEC);
      expect(migrations()).to.have.length(4);
      await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
      expect(await foreignKeyOfProducts(db)).to.equal('categories RESTRICT');
      expect(read(TESTS)).to.contain('keeps a test of my own');
    });

    // Each further change a test of its own (a timeout each), in order, on the same app.
    const rows = async () =>
      Number(((await db.knex('products').count({ n: '*' })) as [{ n: unknown }])[0].n);
    const field = (name: string, line: string) => {
      const spec = read(SPEC);
      const at = new RegExp(`^  ${name}: .*$`, 'm');
      write(
        SPEC,
        at.test(spec) ? spec.replace(at, line) : spec.replace('fields:\n', `fields:\n${line}\n`),
      );
    };
    const steps: [string, () => void][] = [
      [
        'a required field with a default',
        () => field('stock', '  stock: { type: integer, required: true, default: 0 }'),
      ],
      ['an optional field', () => field('code', '  code: { type: string, maxLength: 20 }')],
      [
        'unique on it',
        () => field('code', '  code: { type: string, maxLength: 20, unique: true }'),
      ],
      ['a wider maxLength', () => field('note', '  note: { type: string, maxLength: 400 }')],
      ['an enum field', () => field('grade', '  grade: { type: enum, values: [basic, premium] }')],
      [
        'an enum value',
        () => field('grade', '  grade: { type: enum, values: [basic, premium, outlet] }'),
      ],
      [
        'a rename',
        () =>
          field(
            'stock',
            '  quantity: { type: integer, required: true, default: 0, renamedFrom: stock }',
          ),
      ],
    ];
    /** The rows before the first further change: every change keeps them. */
    let count: number | undefined;
    // Every change migrates on every database with the rows intact. The app's own tests run after
    // each change on one database in turn (a third of the changes each), and after the last change
    // on all three (below): the generated code is the same on each, its migrations are not.
    const dialects: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];
    steps.forEach(([change, make], index) => {
      const ownTests = dialects[index % dialects.length] === dialect;
      const title = ownTests
        ? 'migrates with the rows intact and passes its own tests'
        : 'migrates with the rows intact';
      it(`after a further change (${change}): ${title}`, async () => {
        count ??= await rows();
        make();
        await entity(SPEC);
        await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
        expect(await rows(), change).to.equal(count);
        if (!ownTests) return;
        const output = await run('npm', ['test'], { cwd: app, env: env() });
        expect(output, change).to.contain('keeps a test of my own');
        expect(output, change).not.to.match(/\d+ failing/);
      });
    });

    it('refuses to drop a field until acknowledged, writing nothing until then', async () => {
      expect(count, 'the further changes ran').to.be.a('number');
      expect(await db.knex.schema.hasColumn('products', 'quantity')).to.equal(true);
      edit(SPEC, /^ {2}grade: .*\n/m, '');
      const written = migrations();
      const refusal = await failureOf(entity(SPEC));
      expect(refusal).to.contain('--accept-data-loss');
      expect(migrations()).to.deep.equal(written);
      await entity(SPEC, '--accept-data-loss');
      await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
      expect(await db.knex.schema.hasColumn('products', 'grade')).to.equal(false);
      expect(await rows()).to.equal(count);
    });

    // The admin's code is the same for every database: it is type-checked on SQLite's app alone.
    const admin = dialect === 'sqlite';
    it(`passes the app's own tests, tsc${admin ? " (the admin's too)" : ''}, ESLint and Prettier after the upgrades`, async () => {
      const output = await run('npm', ['test'], { cwd: app, env: env() });
      expect(output).to.contain('keeps a test of my own');
      expect(output).not.to.match(/\d+ failing/);
      // The server's code, then the admin's (`npm run typecheck`).
      for (const project of admin ? [[], ['-p', 'admin']] : [[]]) {
        await run(
          node,
          [
            join(repoRoot, 'node_modules/typescript/bin/tsc'),
            ...project,
            '--noEmit',
            '--customConditions',
            'slicekit-source',
          ],
          { cwd: app, env: env() },
        );
      }
      await run(node, [join(repoRoot, 'node_modules/eslint/bin/eslint.js'), '.'], {
        cwd: app,
        env: env(),
      });
      await run(node, [join(repoRoot, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.'], {
        cwd: app,
        env: env(),
      });
    });

    it('marks a collision, names the file and exits non-zero', async () => {
      edit(ENTITY, 'note: string | null;', 'note: string | null; // on the label');
      edit(
        SPEC,
        'note: { type: string, maxLength: 400 }',
        'remark: { type: string, maxLength: 400, renamedFrom: note }',
      );
      const before = migrations().length;
      const failure = await failureOf(entity(SPEC));
      expect(failure).to.contain(`${ENTITY}: 1 conflict`);
      expect(failure).to.contain('exited with 1');
      expect(read(ENTITY)).to.match(/<<<<<<< yours\n.*on the label\n=======\n.*remark/);
      expect(migrations()).to.have.length(before + 1);
    });
  });
}
