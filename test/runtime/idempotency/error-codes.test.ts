// Every stable error code of the idempotency guard is documented in docs/idempotency.md.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { IdempotencyErrorCode } from '@slicekit/runtime/idempotency';

describe('idempotency guard error codes', () => {
  const doc = readFileSync(new URL('../../../docs/idempotency.md', import.meta.url), 'utf8');
  for (const code of Object.values(IdempotencyErrorCode)) {
    it(`documents ${code}`, () => {
      expect(doc).to.contain(`\`${code}\``);
    });
  }
});
