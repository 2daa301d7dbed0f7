// Every code of the problems the HTTP helpers answer with is documented in docs/reliability.md,
// so a code cannot ship undocumented.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { HttpProblemCode } from '@slicekit/runtime/http';

describe('HTTP problem codes', () => {
  it('documents every code in docs/reliability.md', () => {
    const docs = readFileSync(new URL('../../../docs/reliability.md', import.meta.url), 'utf8');
    const codes = Object.values(HttpProblemCode);
    expect(codes.length).to.be.greaterThan(0);
    expect(codes.filter((code) => !docs.includes(`\`${code}\``))).to.deep.equal([]);
  });
});
