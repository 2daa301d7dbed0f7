// The acting principal from `req.user.id`: a string as it is, a numeric id (Passport apps often
// use an integer key) as its decimal text, anything else anonymous.
import { expect } from 'chai';
import type { Request } from 'express';
import { principalOf } from '@slicekit/runtime/crud';

const withId = (id: unknown): Request => ({ user: { id } }) as unknown as Request;

describe('the acting principal', () => {
  it('takes a string id as it is, surrounding blanks and case included', () => {
    expect(principalOf(withId('alice'))).to.equal('alice');
    expect(principalOf(withId('ALICE '))).to.equal('ALICE ');
  });

  it('takes a finite number or a bigint as its decimal text', () => {
    expect(principalOf(withId(42))).to.equal('42');
    expect(principalOf(withId(0))).to.equal('0');
    expect(principalOf(withId(9007199254740993n))).to.equal('9007199254740993');
  });

  it('treats no user, an empty or blank id, a non-finite number or any other value as anonymous', () => {
    expect(principalOf({} as Request)).to.equal('');
    for (const id of [
      '',
      ' ',
      '\t\n',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      undefined,
      {},
      true,
    ]) {
      expect(principalOf(withId(id)), String(id)).to.equal('');
    }
  });
});
