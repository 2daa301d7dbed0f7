// Every code an idempotency store can raise is documented in docs/stores.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { IdempotencyStoreErrorCode } from '@slicekit/runtime/idempotency/knex';

describe('idempotency store error codes', () => {
  it('documents every code in docs/stores.md', () => {
    const docs = readFileSync(
      join(import.meta.dirname, '..', '..', '..', 'docs', 'stores.md'),
      'utf8',
    );
    const codes = Object.values(IdempotencyStoreErrorCode);
    expect(codes.length).to.be.greaterThan(0);
    expect(codes.filter((code) => !docs.includes(`\`${code}\``))).to.deep.equal([]);
  });
});
