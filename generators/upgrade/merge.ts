// The three-way merge of one generated file: base = what the generator wrote last time (the base
// copy), theirs = what it writes now, ours = the file as the user left it. Lines are merged by
// node-diff3; a collision is kept with git's conflict markers, so nothing is lost silently.
import { merge } from 'node-diff3';

/** What happens to one file of the slice. */
export type FileOutcome =
  /** A file the slice did not have: written. */
  | { kind: 'add'; text: string }
  /** Nothing to do: the file already is what the merge gives. */
  | { kind: 'unchanged' }
  /** The user had not changed it: the new text replaces it. */
  | { kind: 'update'; text: string }
  /** Both changed it, apart: the user's edits and the generator's, merged. */
  | { kind: 'merged'; text: string }
  /** Both changed the same lines: written with conflict markers, to resolve by hand. */
  | { kind: 'conflict'; text: string; reason: string }
  /** No longer generated, and unchanged since: removed. */
  | { kind: 'remove' }
  /** Not written: the user deleted it, or it is no longer generated but the user changed it. */
  | { kind: 'keep'; reason: string; conflict: boolean };

/** The markers' labels: `<<<<<<< yours`, `>>>>>>> generated`. */
export const LABELS = { a: 'yours', b: 'generated' } as const;

const lines = (text: string) => text.split('\n');

/**
 * The outcome for one file, from its three versions (undefined: the file is not there).
 *
 * @example
 * mergeFile('a\nmine\n', 'a\nb\n', 'a\nb\nnew\n'); // { kind: 'merged', text: 'a\nmine\nnew\n' }
 */
export function mergeFile(
  ours: string | undefined,
  base: string | undefined,
  theirs: string | undefined,
): FileOutcome {
  if (theirs === undefined) {
    if (ours === undefined) return { kind: 'unchanged' };
    if (ours === base) return { kind: 'remove' };
    return {
      kind: 'keep',
      reason: 'no longer generated, and changed by you: delete it, or keep what you need of it',
      conflict: true,
    };
  }
  if (ours === undefined) {
    return base === undefined
      ? { kind: 'add', text: theirs }
      : { kind: 'keep', reason: 'deleted by you: left deleted', conflict: false };
  }
  if (ours === theirs) return { kind: 'unchanged' };
  if (ours === base) return { kind: 'update', text: theirs };
  if (theirs === base) return { kind: 'unchanged' };
  // Without a base (a file the user made where the generator now writes one) every difference is
  // a collision.
  const result = merge(lines(ours), lines(base ?? ''), lines(theirs), { label: LABELS });
  const text = result.result.join('\n');
  if (!result.conflict) return { kind: 'merged', text };
  const blocks = result.result.filter((l) => l.startsWith(`<<<<<<< ${LABELS.a}`)).length;
  return {
    kind: 'conflict',
    text,
    reason: `${blocks} conflict${blocks === 1 ? '' : 's'}: your lines above =======, the generator's below`,
  };
}
