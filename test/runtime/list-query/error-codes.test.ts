// Every error code the list-query engine can raise, its own and the shared SQL layer's, is
// documented in docs/list-query.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const root = join(import.meta.dirname, '..', '..', '..');
const sourceDirs = ['list-query', 'sql'].map((area) => join(root, 'runtime', 'src', area));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('list-query error codes', () => {
  it('documents every code in docs/list-query.md', () => {
    const codes = new Set(
      sourceDirs
        .flatMap(sources)
        .flatMap((file) =>
          [...readFileSync(file, 'utf8').matchAll(/'((?:list_query|sql)\.[a-z_]+)'/g)].map(
            (m) => m[1]!,
          ),
        ),
    );
    expect(codes.size).to.be.at.least(3);
    const docs = readFileSync(join(root, 'docs', 'list-query.md'), 'utf8');
    const missing = [...codes].filter((code) => !docs.includes(`\`${code}\``));
    expect(missing).to.deep.equal([]);
  });
});
