// Reusing the database's row estimates for a moment: by statement, for at most the maximum age;
// a count made because the estimate was too low stands in for it when it is past the threshold,
// and rows within the threshold, or only bounded below, are counted each time.
import { expect } from 'chai';
import { EstimateCache } from '@slicekit/runtime/internal';

describe('estimate reuse', () => {
  let clock = 0;
  let asked = 0;
  let counted = 0;
  const THRESHOLD = 10_000;
  const cache = () => new EstimateCache(1_000, 2, () => clock);
  const planner = (count: number | undefined) => async () => {
    asked++;
    return count === undefined ? undefined : { count, kind: 'estimated' as const };
  };
  const rows = (count: number) => async () => {
    counted++;
    return count;
  };
  const total = (
    estimates: EstimateCache,
    key: string,
    estimate: Parameters<EstimateCache['total']>[2],
    count = rows(0),
  ) => estimates.total(key, THRESHOLD, estimate, count);
  beforeEach(() => {
    clock = 0;
    asked = 0;
    counted = 0;
  });

  it('answers the same statement from the planner once within the maximum age, then asks again', async () => {
    const estimates = cache();
    expect(await total(estimates, 'a', planner(50_000))).to.deep.equal({
      count: 50_000,
      kind: 'estimated',
    });
    clock = 999;
    expect(await total(estimates, 'a', planner(60_000))).to.include({ count: 50_000 });
    clock = 1_000;
    expect(await total(estimates, 'a', planner(60_000))).to.include({ count: 60_000 });
    expect([asked, counted]).to.deep.equal([2, 0]);
  });

  it('keeps statements apart, and only the newest ones past its capacity', async () => {
    const estimates = cache();
    await total(estimates, 'tenant ACME', planner(10_001));
    await total(estimates, 'tenant acme', planner(10_002));
    expect(await total(estimates, 'tenant ACME', planner(10_003))).to.include({ count: 10_001 });
    await total(estimates, 'tenant GLOBEX', planner(10_004));
    // Two kept: the oldest, ACME's, made room.
    expect(await total(estimates, 'tenant ACME', planner(10_005))).to.include({ count: 10_005 });
    expect(await total(estimates, 'tenant GLOBEX', planner(10_006))).to.include({ count: 10_004 });
    expect(asked).to.equal(4);
  });

  it('counts rows too few to estimate each time, exactly, and keeps asking no planner meanwhile', async () => {
    const estimates = cache();
    expect(await total(estimates, 'small', planner(undefined), rows(120))).to.deep.equal({
      count: 120,
      kind: 'exact',
    });
    clock = 500;
    expect(await total(estimates, 'small', planner(9), rows(121))).to.deep.equal({
      count: 121,
      kind: 'exact',
    });
    expect([asked, counted]).to.deep.equal([1, 2]);
  });

  it('reuses a count past the threshold as the estimate the planner put too low, for a second', async () => {
    const estimates = cache();
    // InnoDB's cap: a range holding every row of a table is estimated at half of them.
    expect(await total(estimates, 'one tenant', planner(undefined), rows(20_000))).to.deep.equal({
      count: 20_000,
      kind: 'exact',
    });
    clock = 999;
    expect(await total(estimates, 'one tenant', planner(9_000), rows(20_001))).to.deep.equal({
      count: 20_000,
      kind: 'estimated',
    });
    expect([asked, counted]).to.deep.equal([1, 1]);
    clock = 1_000;
    await total(estimates, 'one tenant', planner(undefined), rows(20_002));
    expect([asked, counted]).to.deep.equal([2, 2]);
  });

  it('never keeps a lower bound: it is asked again', async () => {
    const estimates = cache();
    const bound = async () => {
      asked++;
      return { count: 5_001, kind: 'lowerBound' as const };
    };
    await total(estimates, 'sqlite', bound);
    expect(await total(estimates, 'sqlite', bound)).to.include({ kind: 'lowerBound' });
    expect([asked, counted]).to.deep.equal([2, 0]);
  });
});
