// Rows to DTOs: a date-time stored as epoch milliseconds (SQLite) reads as toISOString() writes
// it, across the whole range, and what it cannot read stays as stored.
import { expect } from 'chai';
import { defineListResource } from '@slicekit/runtime/list-query';
import { prng } from './fixture.js';

const events = defineListResource<{ id: number; at: string | number | null }>({
  table: 'events',
  dto: {
    type: 'object',
    properties: { id: { type: 'integer' }, at: { type: ['string', 'null'], format: 'date-time' } },
  },
});

describe('list rows to DTOs', () => {
  it('writes epoch milliseconds as ISO 8601 UTC, exactly as Date#toISOString does', () => {
    const random = prng(28);
    const values = [
      0,
      1,
      86_399_999,
      951_782_400_000, // 2000-02-29
      4_107_542_400_000, // 2100-03-01
      253_402_300_799_999, // the last millisecond of 9999
      ...Array.from({ length: 2000 }, () => Math.floor(random() * 253_402_300_800_000)),
    ];
    for (const at of values) {
      expect(events.toDto({ id: 1, at }).at, String(at)).to.equal(new Date(at).toISOString());
    }
    // Before 1970, past 9999 and text: the general reader, as before.
    for (const at of [-1, 253_402_300_800_000, '2024-05-01 10:00:00']) {
      expect(events.toDto({ id: 1, at }).at).to.equal(
        new Date(typeof at === 'string' ? '2024-05-01T10:00:00Z' : at).toISOString(),
      );
    }
    expect(events.toDto({ id: 1, at: null }).at).to.equal(null);
    expect(events.toDto({ id: 1, at: 8.64e15 + 1 }).at).to.equal(8.64e15 + 1);
  });
});
