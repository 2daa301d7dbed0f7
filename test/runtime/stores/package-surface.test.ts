// What the package declares about its stores, checked against the real files: each store has its
// own subpath export, its driver is an optional peer dependency loaded only from that subpath,
// and no public module exports a store class (applications name registration functions only;
// the runtime's own tests reach the classes through `./internal`, which has no published entry).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect } from 'chai';

const runtimeDir = join(import.meta.dirname, '..', '..', '..', 'runtime');
const manifest = JSON.parse(readFileSync(join(runtimeDir, 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string> | string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

const stores = {
  redis: { driver: 'redis', registration: 'addIdempotencyWithRedisStore' },
} as const;
const drivers = ['pg', 'mysql2', 'redis'];

function exportOf(subpath: string): Record<string, string> {
  const entry = manifest.exports[subpath];
  expect(entry, `exports["${subpath}"]`).to.be.an('object');
  return entry as Record<string, string>;
}

/** The package a bare specifier names: `mysql2/promise` → `mysql2`, `@a/b/c` → `@a/b`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Every package the module graph from `entry` loads at run time: static and dynamic imports and
 * re-exports, without the type-only ones TypeScript erases.
 */
function runtimePackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) {
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else if (!specifier.startsWith('node:')) {
        packages.add(packageOf(specifier));
      }
    }
  };
  visit(entry);
  return packages;
}

// What a published build can load: `./internal` has a source entry only, for the runtime's tests.
const publicSubpaths = Object.keys(manifest.exports).filter(
  (subpath) =>
    subpath !== './package.json' &&
    (manifest.exports[subpath] as Record<string, string>).default !== undefined,
);

describe('the runtime package’s store surface', () => {
  for (const [name, { driver, registration }] of Object.entries(stores)) {
    describe(`the ${name} store`, () => {
      const subpath = `./idempotency/${name}`;

      it(`has its own subpath export, ${subpath}, pointing at real files`, () => {
        const entry = exportOf(subpath);
        expect(entry).to.deep.equal({
          'slicekit-source': `./src/idempotency/stores/${name}.ts`,
          types: `./dist/idempotency/stores/${name}.d.ts`,
          default: `./dist/idempotency/stores/${name}.js`,
        });
        expect(existsSync(join(runtimeDir, entry['slicekit-source']!))).to.equal(true);
      });

      it(`declares ${driver} as an optional peer dependency, not a dependency`, () => {
        expect(manifest.peerDependencies).to.have.property(driver);
        expect(manifest.peerDependenciesMeta?.[driver]?.optional).to.equal(true);
        expect(manifest.dependencies ?? {}).not.to.have.property(driver);
      });

      it(`loads ${driver} and no other store driver`, () => {
        const loaded = runtimePackages(
          join(runtimeDir, 'src', 'idempotency', 'stores', `${name}.ts`),
        );
        expect(loaded.has(driver), `${driver} is loaded`).to.equal(true);
        expect(drivers.filter((other) => other !== driver && loaded.has(other))).to.deep.equal([]);
      });

      it(`exports ${registration} and no store class`, async () => {
        const module = (await import(`@slicekit/runtime/idempotency/${name}`)) as Record<
          string,
          unknown
        >;
        expect(module[registration]).to.be.a('function');
        expect(storeClassesOf(module)).to.deep.equal([]);
      });
    });
  }

  describe("the store on the app's Knex", () => {
    it('has its own subpath export, ./idempotency/knex, loading no database driver itself', () => {
      const entry = exportOf('./idempotency/knex');
      expect(entry['slicekit-source']).to.equal('./src/idempotency/stores/knex.ts');
      const loaded = runtimePackages(join(runtimeDir, entry['slicekit-source']!));
      // The app's Knex brings its driver: pg or mysql2 is loaded by Knex, never by the store.
      expect(drivers.filter((driver) => loaded.has(driver))).to.deep.equal([]);
    });

    it('is the one way to PostgreSQL and MySQL: no entry point opens a pool of its own', () => {
      expect(manifest.exports).not.to.have.property('./idempotency/postgres');
      expect(manifest.exports).not.to.have.property('./idempotency/mysql');
    });

    it('exports addIdempotencyWithKnexStore, its migration and no store class', async () => {
      const module = (await import('@slicekit/runtime/idempotency/knex')) as Record<
        string,
        unknown
      >;
      expect(module.addIdempotencyWithKnexStore).to.be.a('function');
      expect(module.idempotencyKeysMigration).to.be.a('function');
      expect(storeClassesOf(module)).to.deep.equal([]);
    });
  });

  it('loads no store driver from any other public entry point', () => {
    const storeSubpaths = Object.keys(stores).map((name) => `./idempotency/${name}`);
    for (const subpath of publicSubpaths.filter((path) => !storeSubpaths.includes(path))) {
      const source = exportOf(subpath)['slicekit-source']!;
      const loaded = runtimePackages(join(runtimeDir, source));
      expect(
        drivers.filter((driver) => loaded.has(driver)),
        `drivers loaded by ${subpath}`,
      ).to.deep.equal([]);
    }
  });

  it('exports no store class from any public entry point', async () => {
    for (const subpath of publicSubpaths) {
      const specifier = `@slicekit/runtime${subpath.slice(1)}`;
      const module = (await import(specifier)) as Record<string, unknown>;
      expect(storeClassesOf(module), `store classes exported by ${specifier}`).to.deep.equal([]);
    }
  });
});

/** Exported classes whose name says they are a store (`...Store`), e.g. `RedisIdempotencyStore`. */
function storeClassesOf(module: Record<string, unknown>): string[] {
  return Object.entries(module)
    .filter(
      ([, value]) =>
        typeof value === 'function' &&
        /^class\b/.test(Function.prototype.toString.call(value)) &&
        /Store$/.test((value as { name: string }).name),
    )
    .map(([exported]) => exported);
}
