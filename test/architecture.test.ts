// The layout docs/architecture.md describes, checked: no import cycles, the runtime's areas import
// only what the architecture allows, and files stay small unless their first comment says why.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';

const root = fileURLToPath(new URL('../', import.meta.url));
const MAX_LINES = 300;

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
  before(async () => {
    const options = {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: join(root, 'tsconfig.json'),
    };
    // Every import, types included, for the layers; only what runs, for cycles (TypeScript erases
    // `import type`, so a type naming a type back is no cycle at run time).
    graph = (await madge(['generators', 'runtime/src'], options)).obj();
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
});
