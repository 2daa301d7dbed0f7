// Every error code thrown by the auth, config, events, sequences, reference-data, OpenAPI and
// tracing areas is documented on that area's docs page, so a code cannot ship undocumented.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const root = join(import.meta.dirname, '..', '..', '..');
const areas: Record<string, string> = {
  auth: 'docs/auth.md',
  config: 'docs/reliability.md',
  events: 'docs/events.md',
  sequences: 'docs/sequences.md',
  'reference-data': 'docs/reference-data.md',
  openapi: 'docs/openapi.md',
  tracing: 'docs/operations.md',
};

/** Codes given to SlicekitError (directly or through a subclass's super call) in an area. */
function codesOf(area: string): string[] {
  const dir = join(root, 'runtime', 'src', area);
  const codes = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/(?:super|SlicekitError)\(\s*'([a-z]+(?:_[a-z]+)+)'/g)) {
      codes.add(m[1] as string);
    }
    // Codes passed as a union-typed parameter: 'a' | 'b'.
    for (const m of text.matchAll(/code: ((?:'[a-z_]+'(?:\s*\|\s*)?)+)/g)) {
      for (const c of (m[1] as string).matchAll(/'([a-z_]+)'/g)) codes.add(c[1] as string);
    }
  }
  return [...codes].sort();
}

describe('error codes', () => {
  for (const [area, page] of Object.entries(areas)) {
    it(`documents every ${area} error code in ${page}`, () => {
      const codes = codesOf(area);
      expect(codes, `no codes found in runtime/src/${area}`).to.have.length.greaterThan(0);
      const docs = readFileSync(join(root, page), 'utf8');
      expect(codes.filter((code) => !docs.includes(`\`${code}\``))).to.deep.equal([]);
    });
  }
});
