// The app generator: the exact files it writes, the rendered files per database (snapshots under
// app-snapshots/, rewritten with UPDATE_SNAPSHOTS=1), Prettier-clean output, and answers it
// refuses without writing anything.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodePlop from 'node-plop';
import * as prettier from 'prettier';
import { scratchFolder } from '../e2e/support/workspace.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const snapshots = fileURLToPath(new URL('./app-snapshots/', import.meta.url));
const templates = join(root, 'templates/app');
const rendered = [
  '.env.example',
  'Dockerfile',
  'README.md',
  'compose.yaml',
  'package.json',
  'src/config.ts',
  'src/instrument.ts',
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

async function generate(answers: Record<string, unknown>) {
  const plop = await nodePlop(join(root, 'plopfile.ts'), { destBasePath: root, force: false });
  return plop.getGenerator('app').runActions(answers);
}

describe('app generator', () => {
  let scratch: ReturnType<typeof scratchFolder>;
  before(() => {
    scratch = scratchFolder('app-generator');
  });
  after(() => scratch?.remove());

  for (const database of ['sqlite', 'postgres', 'mysql'] as const) {
    describe(`for ${database}`, () => {
      let directory: string;

      before(async () => {
        directory = join(scratch.path, database, 'shop');
        const { failures } = await generate({ name: 'shop', directory, database, install: false });
        expect(failures).to.deep.equal([]);
      });

      it('writes exactly the app files, and links slicekit for an app inside the checkout', () => {
        expect(filesUnder(directory)).to.deep.equal([
          '.dockerignore',
          '.env.example',
          '.gitignore',
          '.mocharc.json',
          '.prettierignore',
          '.prettierrc.json',
          'Dockerfile',
          'README.md',
          'admin/build.ts',
          'admin/index.html',
          'admin/src/actions.tsx',
          'admin/src/auth.tsx',
          'admin/src/main.tsx',
          'admin/src/nested.tsx',
          'admin/src/resource.ts',
          'admin/src/resources.ts',
          'admin/src/restore.tsx',
          'admin/src/row-route.ts',
          'admin/tsconfig.json',
          'client/index.ts',
          'client/schema.ts',
          'compose.yaml',
          'eslint.config.js',
          'haproxy.cfg',
          'migrations/00000000000000_slicekit_outbox.ts',
          'migrations/00000000000001_slicekit_outbox_event_id.ts',
          'migrations/00000000000002_slicekit_idempotency_keys.ts',
          'node_modules/slicekit',
          'package.json',
          'plopfile.js',
          'scripts/client.ts',
          'seeds/.gitkeep',
          'src/admin.ts',
          'src/app.ts',
          'src/auth.ts',
          'src/config.ts',
          'src/database-admin.ts',
          'src/db.ts',
          'src/events.ts',
          'src/http/problems.ts',
          'src/http/request-log.ts',
          'src/idempotency.ts',
          'src/instrument.ts',
          'src/knexfile.ts',
          'src/logger.ts',
          'src/migrate.ts',
          'src/migration-source.ts',
          'src/openapi.ts',
          'src/reference-data.ts',
          'src/seed.ts',
          'src/server.ts',
          'src/slices/events.ts',
          'test/app.test.ts',
          'test/support/test-app.ts',
          'tsconfig.build.json',
          'tsconfig.json',
        ]);
      });

      for (const file of rendered) {
        it(`renders ${file} as in its snapshot`, () => {
          const actual = readFileSync(join(directory, file), 'utf8');
          const snapshot = join(snapshots, database, file);
          if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(snapshot)) {
            mkdirSync(dirname(snapshot), { recursive: true });
            writeFileSync(snapshot, actual);
          }
          expect(actual).to.equal(readFileSync(snapshot, 'utf8'));
        });
      }

      it('copies every other file from its template unchanged', () => {
        const copied = filesUnder(directory).filter(
          (file) => !rendered.includes(file) && !file.startsWith('node_modules/'),
        );
        for (const file of copied) {
          const template = file === '.gitignore' ? 'gitignore' : file;
          expect(readFileSync(join(directory, file), 'utf8'), file).to.equal(
            readFileSync(join(templates, template), 'utf8'),
          );
        }
      });

      it('writes Prettier-formatted files', async () => {
        const options = JSON.parse(readFileSync(join(directory, '.prettierrc.json'), 'utf8'));
        for (const file of filesUnder(directory).filter((f) => /\.(ts|js|json|md|yaml)$/.test(f))) {
          const text = readFileSync(join(directory, file), 'utf8');
          const formatted = await prettier.check(text, { ...options, filepath: file });
          expect(formatted, `${file} is not Prettier-formatted`).to.equal(true);
        }
      });

      it("leaves the entity specs a user keeps in specs/ to the user's own style", async () => {
        const spec = join(directory, 'specs/book.yaml');
        mkdirSync(dirname(spec), { recursive: true });
        writeFileSync(
          spec,
          'entity: Book\nfields:\n  isbn: {type: string, pattern: "^[0-9]{13}$"}\n',
        );
        const ignorePath = join(directory, '.prettierignore');
        expect((await prettier.getFileInfo(spec, { ignorePath })).ignored).to.equal(true);
        const src = join(directory, 'src/app.ts');
        expect((await prettier.getFileInfo(src, { ignorePath })).ignored).to.equal(false);
      });
    });
  }

  it('refuses a folder that is not empty, and writes nothing into it', async () => {
    const directory = join(scratch.path, 'taken');
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    const { failures } = await generate({ name: 'shop', directory, install: false });
    expect(failures[0]?.error).to.match(/is not empty: choose a new folder/);
    expect(readdirSync(directory)).to.deep.equal(['notes.txt']);
  });

  it('refuses an unusable name or database, saying what to use instead', async () => {
    const directory = join(scratch.path, 'refused');
    let error: unknown;
    try {
      await generate({ name: 'Shop API', directory, database: 'oracle', install: false });
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.contain('"Shop API" is not a usable app name: use lower-case letters');
    expect(String(error)).to.contain('"oracle" is not a supported database: choose sqlite');
    expect(existsSync(directory)).to.equal(false);
  });
});
