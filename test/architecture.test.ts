// The layout docs/architecture.md describes, checked: no import cycles, the runtime's areas import
// only what the architecture allows, and files stay small unless their first comment says why.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';

const root = fileURLToPath(new URL('../', import.meta.url));
const MAX_LINES = 300;

/**
 * A line that branches on which database it talks to: a comparison with a database or driver
 * name, a `switch` over `sqlFamily`, or a comparison of what `sqlFamily` / `dialectOf` / a Knex
 * client's `dialect` answers. Such a line belongs in a dialect object (runtime/src/sql/dialects/).
 * The upgrade generator's migration templates (templates/upgrade/) are not scanned: a migration
 * file is written once into the app and must keep running unchanged under any later runtime, so
 * it asks Knex itself (`knex.client.dialect`) instead of a runtime API that may change.
 */
const DATABASE_BRANCH = new RegExp(
  [
    String.raw`[!=]==?\s*'(pg|mysql2?|better-sqlite3|postgres(ql)?|sqlite3?)'`,
    String.raw`'(pg|mysql2?|better-sqlite3|postgres(ql)?|sqlite3?)'\s*[!=]==?`,
    String.raw`case\s+'(pg|mysql2?|better-sqlite3|postgres(ql)?|sqlite3?)'\s*:`,
    String.raw`switch\s*\(\s*(sqlFamily|dialectOf|familyOfUrl)\(`,
    String.raw`(sqlFamily|dialectOf|familyOfUrl)\([^)]*\)\s*[!=]==?`,
    String.raw`client\.dialect\s*[!=]==?`,
  ].join('|'),
);

/**
 * Files other areas import directly instead of through their area's index.ts. Each is a leaf
 * (errors, problem kinds, a type, a stored-value reader) that the area's index re-exports; going
 * through the index instead would load the whole area (http's index pulls Express middleware and
 * the problem pages into sql-level code) and, for http and logging, close import cycles. A new
 * direct import fails this test: import from the area's index.ts, or move the helper down a
 * layer. sql/ has no index: its modules (dialects/index.ts, values.ts, names.ts, json-schema.ts)
 * are the bottom layer's entry points.
 */
const DIRECT_IMPORTS = new Set([
  'runtime/src/auth/user.ts',
  'runtime/src/config/env.ts',
  'runtime/src/config/errors.ts',
  'runtime/src/database/transaction.ts',
  'runtime/src/database/unavailable.ts',
  'runtime/src/domain/errors.ts',
  'runtime/src/events/declared.ts',
  'runtime/src/events/record.ts',
  'runtime/src/events/relay.ts',
  'runtime/src/events/types.ts',
  'runtime/src/fields/kinds.ts',
  'runtime/src/http/entity-tag.ts',
  'runtime/src/http/problem-kinds.ts',
  'runtime/src/http/problem.ts',
  'runtime/src/idempotency/guard.ts',
  'runtime/src/idempotency/key-info.ts',
  'runtime/src/idempotency/store.ts',
  'runtime/src/list-query/handler.ts',
  'runtime/src/list-query/resource.ts',
  'runtime/src/list-query/schema.ts',
  'runtime/src/logging/safe-error.ts',
  'runtime/src/logging/statements.ts',
  'runtime/src/openapi/types.ts',
  'runtime/src/reference-data/define.ts',
  'runtime/src/sql/dialects/index.ts',
  'runtime/src/sql/json-schema.ts',
  'runtime/src/sql/names.ts',
  'runtime/src/sql/values.ts',
]);

/** Cycles through `import type` that TypeScript erases: a type naming a type back. */
const KNOWN_TYPE_CYCLES = [
  ['generators/model/types.ts', 'generators/model/relation-types.ts'],
  ['generators/upgrade/diff.ts', 'generators/upgrade/diff-joins.ts'],
  ['runtime/src/crud/table.ts', 'runtime/src/crud/referencing.ts'],
  ['runtime/src/idempotency/store.ts', 'runtime/src/idempotency/key-info.ts'],
];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

describe('architecture', function () {
  this.timeout(60_000);
  let graph: Record<string, string[]>;
  let circular: string[][];
  let typeCircular: string[][];
  before(async () => {
    const options = {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: join(root, 'tsconfig.json'),
    };
    // Every import, types included, for the layers; only what runs, for cycles (TypeScript erases
    // `import type`, so a type naming a type back is no cycle at run time).
    const everything = await madge(['generators', 'runtime/src'], options);
    graph = everything.obj();
    typeCircular = everything.circular();
    circular = (
      await madge(['generators', 'runtime/src'], {
        ...options,
        detectiveOptions: { ts: { skipTypeImports: true } },
      })
    ).circular();
  });

  it('has no import cycle in the generators or the runtime', () => {
    expect(Object.keys(graph).length).to.be.greaterThan(100);
    expect(circular).to.deep.equal([]);
  });

  it('keeps the shared runtime layers free of the areas built on them', () => {
    // sql/ and fields/ are the bottom: every area may use them, they use no area.
    const bottom = Object.entries(graph).filter(([file]) =>
      /^runtime\/src\/(sql|fields)\//.test(file),
    );
    expect(bottom.length).to.be.greaterThan(3);
    for (const [file, imports] of bottom) {
      const areas = imports.filter(
        (target) =>
          !/^runtime\/src\/(sql|fields)\//.test(target) && target !== 'runtime/src/errors.ts',
      );
      expect(areas, file).to.deep.equal([]);
    }
    // domain/ is what entity classes import: no HTTP, no database, no other area.
    for (const [file, imports] of Object.entries(graph)) {
      if (file.startsWith('runtime/src/domain/')) {
        expect(
          imports.filter(
            (t) => !t.startsWith('runtime/src/domain/') && t !== 'runtime/src/errors.ts',
          ),
          file,
        ).to.deep.equal([]);
      }
    }
    // Sequences and reference data ask sql/ which database this is, not the events area.
    for (const [file, imports] of Object.entries(graph)) {
      if (/^runtime\/src\/(sequences|reference-data|crud|list-query)\//.test(file)) {
        expect(
          imports.filter((target) => target.startsWith('runtime/src/events/dialect')),
          file,
        ).to.deep.equal([]);
      }
    }
  });

  it('keeps every source file under 300 lines, or says why in its first comment', () => {
    const long = [...sources('generators'), ...sources('runtime/src')].filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      const lines = text.split('\n').length;
      return lines > MAX_LINES && !/^\/\/[^\n]*\blong\b/i.test(text);
    });
    expect(long).to.deep.equal([]);
  });

  it('has no import cycle through type-only imports either, beyond the known ones', () => {
    // A cycle is the same whichever of its files the walk entered it by.
    const named = (cycle: readonly string[]) => {
      const first = cycle.indexOf([...cycle].sort()[0]!);
      return [...cycle.slice(first), ...cycle.slice(0, first)].join(' > ');
    };
    const known = new Set(KNOWN_TYPE_CYCLES.map(named));
    expect(typeCircular.filter((cycle) => !known.has(named(cycle)))).to.deep.equal([]);
  });

  it('lets only runtime/src/sql/dialects/ know which database it talks to', () => {
    const files = [
      ...sources('runtime/src'),
      ...sources('generators'),
      ...templateSources('templates/app'),
    ];
    expect(files.length).to.be.greaterThan(100);
    expect(databaseBranches(files)).to.deep.equal([]);
  });

  it('imports another runtime area only through its index.ts, beyond the listed exceptions', () => {
    expect(areaImportOffenders(graph)).to.deep.equal([]);
  });
});

/** Each place a branch on the database names one (see `DATABASE_BRANCH`), as `file:line`. */
export function databaseBranches(files: readonly string[]): string[] {
  return files
    .filter((file) => !file.startsWith('runtime/src/sql/dialects/'))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (DATABASE_BRANCH.test(line) ? [`${file}:${i + 1}`] : [])),
    );
}

/** Imports from one runtime area into another area's file other than its index.ts. */
export function areaImportOffenders(imports: Record<string, string[]>): string[] {
  const areaOf = (file: string) => /^runtime\/src\/([^/]+)\//.exec(file)?.[1];
  return Object.entries(imports).flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const area = areaOf(target);
        return (
          area !== undefined &&
          areaOf(file) !== undefined &&
          area !== areaOf(file) &&
          target !== `runtime/src/${area}/index.ts` &&
          !DIRECT_IMPORTS.has(target)
        );
      })
      .map((target) => `${file} -> ${target}`),
  );
}

function templateSources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ts(\.hbs)?$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split('\\').join('/'));
}
