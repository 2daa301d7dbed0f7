// Sample text for a field with a `pattern`: drawn from the regular expression itself (randexp),
// within the field's lengths, and the same on every run (randexp's random numbers come from a
// generator seeded by the entity, field, row and attempt).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type RandExpModule from 'randexp';

// randexp is CommonJS (module.exports is the class) typed as an ES module with a default export:
// under NodeNext the default import is typed as the module, so its `default` names the class.
type RandExpClass = typeof RandExpModule.default;
let RandExp: RandExpClass | undefined;

/** randexp, loaded by the first field with a pattern (most runs have none). */
function randExp(): RandExpClass {
  if (!RandExp) {
    const loaded = createRequire(import.meta.url)('randexp') as RandExpClass & {
      default?: RandExpClass;
    };
    RandExp = loaded.default ?? loaded;
  }
  return RandExp;
}

/** Numbers in [0, 1) from a 32-bit seed (mulberry32): small, fast and stable across platforms. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (key: string): number => createHash('sha1').update(key).digest().readUInt32BE(0);

/**
 * A string matching `pattern`, drawn for `key` (the same key, the same string). Open repetitions
 * (`+`, `*`, `{3,}`) stop near `maxLength`; the caller checks the lengths and the pattern.
 */
export function patternText(
  pattern: string,
  key: string,
  lengths: { minLength?: number; maxLength?: number } = {},
): string {
  const rx = new (randExp())(pattern);
  const random = seeded(seedOf(key));
  rx.randInt = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
  rx.max = Math.max(lengths.minLength ?? 1, Math.min(lengths.maxLength ?? 12, 12));
  // What `.` and negated classes stand for: letters and digits, never a quote or a control
  // character a literal in a generated file would have to escape.
  rx.defaultRange.subtract(0, 47).subtract(58, 64).subtract(91, 96).subtract(123, 0x10ffff);
  return rx.gen();
}
