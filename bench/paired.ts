// Paired loads, shared by the idempotency benchmarks: a guarded route measured right beside its
// unguarded one, so what drifts during a run falls on both sides of a pair alike.

/**
 * Loads both sides of a pair, one after the other: the unguarded side first in even rounds, the
 * guarded side first in odd ones, so neither always runs second.
 */
export async function loadPair<T>(
  round: number,
  plain: () => Promise<T>,
  guarded: () => Promise<T>,
): Promise<{ plain: T; guarded: T }> {
  if (round % 2 === 0) {
    const first = await plain();
    return { plain: first, guarded: await guarded() };
  }
  const first = await guarded();
  return { plain: await plain(), guarded: first };
}
