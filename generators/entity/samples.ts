// Sample values for seeds and generated tests: each kind's own (the runtime's field-kind
// registry picks them from a field's name and keeps them inside its constraints, distinct per row
// for a unique key), the same on every run so snapshots stay stable.
import { fieldKinds, stableUuid } from '@slicekit/runtime/fields';
import type { FieldModel, ParamModel } from '../model/types.js';

export { stableUuid };

type Typed = Pick<
  FieldModel,
  'type' | 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'pattern' | 'values' | 'scale'
> & {
  name: { camel: string; words: string };
  hasDefault?: boolean;
  default?: unknown;
};

/**
 * The sample value of row `i` for a field or parameter, as JSON would carry it. `distinct` asks
 * for a value that differs on every row and from everyday codes (a unique key).
 */
export function sampleValue(f: Typed, i: number, seed: string, distinct = false): unknown {
  return fieldKinds[f.type].sample(f, {
    name: f.name.camel,
    index: i,
    seed,
    distinct,
    ...(f.hasDefault ? { default: f.default } : {}),
  });
}

/** A value the parameter's kind never accepts: a request carrying it is a 400. */
export function wrongValue(p: ParamModel): unknown {
  return fieldKinds[p.type].wrong;
}
