// Sample values for seeds and generated tests: the spec's own `examples` first, else a realistic
// value for the field's name, kind and entity (realistic.ts, drawn from @faker-js/faker at
// generation time) or one drawn from its `pattern` (pattern-samples.ts), kept when it fits every
// constraint (the runtime's field-kind registry answers its own plain value otherwise), distinct
// per row for a unique key, and the same on every run.
import { fieldKinds, stableUuid } from '@slicekit/runtime/fields';
import { EntitySpecError } from '../model/errors.js';
import type { EntityModel, FieldModel, ParamModel } from '../model/types.js';
import { patternText } from './pattern-samples.js';
import { realisticValue } from './realistic.js';

export { stableUuid };

type Typed = Pick<
  FieldModel,
  'type' | 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'pattern' | 'values' | 'scale'
> & {
  name: { camel: string; words: string };
  hasDefault?: boolean;
  default?: unknown;
  examples?: readonly unknown[];
  /** The field a parameter sets: its examples are the parameter's. */
  field?: Pick<FieldModel, 'examples'>;
};

// How many draws a row of a unique field gets before it takes its kind's own distinct value.
const DRAWS = 20;

/** Rows 0, 1, 2... of each unique field drawn so far, so row i is drawn once per run. */
const distinctRows = new Map<string, unknown[]>();

/** How two values of a unique column compare: MySQL's usual collation ignores case. */
const sameKey = (value: unknown) =>
  typeof value === 'string' ? value.toLowerCase() : JSON.stringify(value);

/**
 * The sample value of row `i` for a field or parameter of entity `seed`, as JSON would carry it.
 * `distinct` asks for a value no other row holds (a unique key), and none of `avoid` (the rows
 * of its reference data).
 */
export function sampleValue(
  f: Typed,
  i: number,
  seed: string,
  distinct = false,
  avoid: readonly unknown[] = [],
): unknown {
  const kind = fieldKinds[f.type];
  const at = {
    name: f.name.camel,
    seed,
    distinct,
    ...(f.hasDefault ? { default: f.default } : {}),
  };
  const fits = (value: unknown) => value !== undefined && kind.problem(value, f) === undefined;
  /** The kind's own plain value of `row`, when it fits; a field nothing fits is the spec's to fix. */
  const own = (row: number) => {
    const value = kind.sample(f, { ...at, index: row });
    if (fits(value) || f.pattern === undefined) return value;
    throw new EntitySpecError(`the spec of ${seed}`, [
      {
        path: `fields.${f.name.camel}`,
        message: `no sample value was found that keeps every constraint (${kind.problem(value, f)})`,
        fix: `give examples: [...] for ${f.name.camel}${distinct ? ', one per row (5 or more)' : ''}`,
      },
    ]);
  };
  /** The realistic value of `row`'s draw `attempt`, fitted by its kind; undefined if unfit. */
  const realistic = (row: number, attempt: number): unknown => {
    const context = { entity: seed, name: f.name.camel, kind: f.type, constraints: f };
    const proposal = realisticValue({ ...context, row, attempt });
    if (proposal === undefined) return undefined;
    const value = kind.sample(f, { ...at, index: row, proposal });
    return fits(value) ? value : undefined;
  };
  /** A text drawn from the field's pattern, when it has one and the text fits. */
  const fromPattern = (row: number, attempt: number): unknown => {
    if (f.pattern === undefined || kind.value !== 'string') return undefined;
    const text = patternText(f.pattern, `${seed}:${f.name.camel}:${row}:${attempt}`, f);
    return fits(text) ? text : undefined;
  };
  // A realistic value rarely matches a pattern: past the first draws, the pattern draws.
  const drawn = (row: number, attempt: number): unknown =>
    attempt < 2 || f.pattern === undefined ? realistic(row, attempt) : fromPattern(row, attempt);
  const examples = f.examples ?? f.field?.examples ?? [];
  if (!distinct) {
    if (examples.length > 0) return examples[i % examples.length];
    for (let attempt = 0; attempt < (f.pattern === undefined ? 2 : DRAWS); attempt++) {
      const value = drawn(i, attempt);
      if (value !== undefined) return value;
    }
    return own(i);
  }

  const key = JSON.stringify([
    seed,
    f.name.camel,
    f.type,
    f.minLength,
    f.maxLength,
    f.minimum,
    f.maximum,
    f.scale,
    f.values,
    f.pattern,
    examples,
    avoid,
  ]);
  const rows = distinctRows.get(key) ?? [];
  distinctRows.set(key, rows);
  const taken = new Set([...avoid, ...rows].map(sameKey));
  // The spec's examples come first, one per row, then drawn values none of them repeats.
  const unused = examples.filter((e) => !avoid.map(sameKey).includes(sameKey(e)));
  for (let row = rows.length; row <= i; row++) {
    let value: unknown = unused.find((e) => !taken.has(sameKey(e)));
    for (let attempt = 0; attempt < DRAWS && value === undefined; attempt++) {
      const candidate = drawn(row, attempt);
      if (candidate !== undefined && !taken.has(sameKey(candidate))) value = candidate;
    }
    value ??= own(row);
    taken.add(sameKey(value));
    rows.push(value);
  }
  return rows[i];
}

/** The values the reference data of `model` gives field `f`: new rows must not repeat them. */
export function referenceValues(model: EntityModel, f: FieldModel): unknown[] {
  return (model.referenceData?.rows ?? []).map((row) => row[f.name.camel]).filter((v) => v != null);
}

/** A value the parameter's kind never accepts: a request carrying it is a 400. */
export function wrongValue(p: ParamModel): unknown {
  return fieldKinds[p.type].wrong;
}
