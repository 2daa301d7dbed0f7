// Sample values for seeds and generated tests: a realistic value for the field's name, kind and
// entity (realistic.ts, drawn from @faker-js/faker at generation time), kept by the field's kind
// when it fits the constraints (the runtime's field-kind registry answers its own plain value
// otherwise), distinct per row for a unique key, and the same on every run.
import { fieldKinds, stableUuid } from '@slicekit/runtime/fields';
import type { EntityModel, FieldModel, ParamModel } from '../model/types.js';
import { realisticValue } from './realistic.js';

export { stableUuid };

type Typed = Pick<
  FieldModel,
  'type' | 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'pattern' | 'values' | 'scale'
> & {
  name: { camel: string; words: string };
  hasDefault?: boolean;
  default?: unknown;
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
  const own = (row: number) => kind.sample(f, { ...at, index: row });
  /** The realistic value of `row`'s draw `attempt`, fitted by its kind; undefined if unfit. */
  const drawn = (row: number, attempt: number): unknown => {
    const context = { entity: seed, name: f.name.camel, kind: f.type, constraints: f };
    const proposal = realisticValue({ ...context, row, attempt });
    if (proposal === undefined) return undefined;
    const value = kind.sample(f, { ...at, index: row, proposal });
    return kind.problem(value, f) === undefined ? value : undefined;
  };
  if (!distinct) return drawn(i, 0) ?? drawn(i, 1) ?? own(i);

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
    avoid,
  ]);
  const rows = distinctRows.get(key) ?? [];
  distinctRows.set(key, rows);
  const taken = new Set([...avoid, ...rows].map(sameKey));
  for (let row = rows.length; row <= i; row++) {
    let value: unknown;
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
