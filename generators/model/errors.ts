// The error a broken entity spec raises: every problem, each with where it is and how to fix it.
import { SlicekitError } from '@slicekit/runtime/domain';
import type { EntityModel } from './types.js';

/** One mistake in a spec. */
export interface SpecProblem {
  /** Where: `fields.price.type`, `actions[0].verb`; empty for the whole spec. */
  path: string;
  /** What is wrong. */
  message: string;
  /** What to write instead. */
  fix: string;
}

/** Raised before anything is written when a spec (file, prompts or arguments) is broken. */
export class EntitySpecError extends SlicekitError {
  override name = 'EntitySpecError';
  /** The spec file, or `the prompts` / `the arguments`. */
  readonly source: string;
  readonly problems: readonly SpecProblem[];
  /**
   * The model resolved with the broken parts set aside, when one could be: a run checks it
   * against the app and the other specs too, so one report holds every mistake.
   */
  readonly partial?: EntityModel;

  constructor(
    source: string,
    reported: readonly SpecProblem[],
    options?: { cause?: unknown; partial?: EntityModel },
  ) {
    // Each problem once, however many checks came upon it.
    const problems = reported.filter(
      (p, i) => reported.findIndex((q) => q.path === p.path && q.message === p.message) === i,
    );
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    const lines = problems.map(
      (p) => `  - ${p.path ? `${p.path}: ` : ''}${p.message}. Fix: ${p.fix}`,
    );
    super(
      'entity_spec.invalid',
      `${source} has ${count}:\n${lines.join('\n')}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.source = source;
    this.problems = problems;
    if (options?.partial) this.partial = options.partial;
  }
}

/** The closest of `candidates` to `word`, if it is close enough to be a likely typo. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/**
 * The fix for a name that is not one of `candidates`: the likely intended one first, if any.
 *
 * @example
 * nameOneOf('prize', ['name', 'price']); // 'did you mean price? name one of name, price'
 */
export function nameOneOf(word: string, candidates: readonly string[]): string {
  return `${didYouMean(word, candidates)}name one of ${candidates.join(', ')}`;
}

/** `did you mean price? ` when `word` is a likely typo of one of `candidates`, else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const guess = nearest(word, candidates);
  return guess && guess !== word ? `did you mean ${guess}? ` : '';
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
