// Every error code the CRUD plumbing and the entity generator raise is documented in
// docs/generated-code.md, so a code cannot ship undocumented.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');

function codesIn(dir: string): string[] {
  const codes = new Set<string>();
  for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(root, dir, file), 'utf8');
    for (const m of text.matchAll(/'((?:crud|entity_spec)\.[a-z_]+)'/g)) codes.add(m[1]!);
  }
  return [...codes].sort();
}

describe('CRUD and entity spec error codes', () => {
  it('documents every code in docs/generated-code.md', () => {
    const codes = [
      ...codesIn('runtime/src/crud'),
      ...codesIn('generators/model'),
      ...codesIn('generators/entity'),
    ];
    expect(codes).to.include.members([
      'crud.invalid_slice',
      'crud.not_found',
      'entity_spec.invalid',
      'entity_spec.files_kept',
    ]);
    const docs = readFileSync(join(root, 'docs/generated-code.md'), 'utf8');
    expect(codes.filter((code) => !docs.includes(`\`${code}\``))).to.deep.equal([]);
  });
});
