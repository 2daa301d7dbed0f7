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

  it('has no import cycle through type-only imports either', () => {
    expect(typeCircular).to.deep.equal([]);
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

  it('imports another runtime area only through its index.ts', () => {
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

/**
 * Imports from one runtime area into another area's file other than its index.ts. The areas'
 * imports form no cycle, so going through an index never closes one (the cycle tests above).
 */
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
          target !== `runtime/src/${area}/index.ts`
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
