// Reusing the database's row estimates for a moment: by statement, for at most the maximum age,
// and never a count read from the rows themselves.
import { expect } from 'chai';
import { EstimateCache } from '@slicekit/runtime/internal';

describe('estimate reuse', () => {
  let clock = 0;
  let asked = 0;
  const cache = () => new EstimateCache(1_000, 2, () => clock);
  const planner = (count: number) => async () => {
    asked++;
    return { count, kind: 'estimated' as const };
  };
  beforeEach(() => {
    clock = 0;
    asked = 0;
  });

  it('answers the same statement from the planner once within the maximum age, then asks again', async () => {
    const estimates = cache();
    expect(await estimates.reuse('a', planner(50_000))).to.deep.equal({
      count: 50_000,
      kind: 'estimated',
    });
    clock = 999;
    expect(await estimates.reuse('a', planner(60_000))).to.include({ count: 50_000 });
    clock = 1_000;
    expect(await estimates.reuse('a', planner(60_000))).to.include({ count: 60_000 });
    expect(asked).to.equal(2);
  });

  it('keeps statements apart, and only the newest ones past its capacity', async () => {
    const estimates = cache();
    await estimates.reuse('tenant ACME', planner(1));
    await estimates.reuse('tenant acme', planner(2));
    expect(await estimates.reuse('tenant ACME', planner(3))).to.include({ count: 1 });
    await estimates.reuse('tenant GLOBEX', planner(4));
    // Two kept: the oldest, ACME's, made room.
    expect(await estimates.reuse('tenant ACME', planner(5))).to.include({ count: 5 });
    expect(await estimates.reuse('tenant GLOBEX', planner(6))).to.include({ count: 4 });
    expect(asked).to.equal(4);
  });

  it('keeps "too few to estimate", but never a count of the rows themselves', async () => {
    const estimates = cache();
    const tooFew = async () => {
      asked++;
      return undefined;
    };
    const bound = async () => {
      asked++;
      return { count: 5_001, kind: 'lowerBound' as const };
    };
    expect(await estimates.reuse('small', tooFew)).to.equal(undefined);
    expect(await estimates.reuse('small', planner(9))).to.equal(undefined);
    await estimates.reuse('sqlite', bound);
    expect(await estimates.reuse('sqlite', bound)).to.include({ kind: 'lowerBound' });
    expect(asked).to.equal(3);
  });
});
