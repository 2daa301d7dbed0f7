// Sample values for seeds and generated tests: each kind's own (the runtime's field-kind
// registry picks them from a field's name and keeps them inside its constraints), the same on
// every run so snapshots stay stable, and distinct ones for a unique key.
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

/** `value` kept within the field's minimum and maximum, at its scale. */
function clamp(value: number, f: Typed): number {
  let v = value;
  if (f.minimum !== undefined && v < f.minimum) v = f.minimum + value / 1000;
  if (f.maximum !== undefined && v > f.maximum) v = f.maximum;
  const scale = f.type === 'integer' ? 0 : (f.scale ?? 2);
  return Number(v.toFixed(scale));
}

/**
 * A value of row `i` no other row shares, for a field that must be unique (a reference-data key):
 * `X01`, `X02`... for text, unlikely to be a real code, and 9001, 9002... for numbers.
 */
function distinctValue(f: Typed, i: number): unknown {
  const value = fieldKinds[f.type].value;
  if (value === 'string') {
    const width = Math.max(3, Math.min(f.maxLength ?? 8, Math.max(f.minLength ?? 0, 3)));
    return `X${String(i + 1).padStart(width - 1, '0')}`;
  }
  if (value === 'integer' || value === 'decimal') return clamp(9001 + i, f);
  return undefined;
}

/**
 * The sample value of row `i` for a field or parameter, as JSON would carry it. `distinct` asks
 * for a value that differs on every row and from everyday codes (a unique key).
 */
export function sampleValue(f: Typed, i: number, seed: string, distinct = false): unknown {
  if (distinct) {
    const value = distinctValue(f, i);
    if (value !== undefined) return value;
  }
  return fieldKinds[f.type].sample(f, {
    name: f.name.camel,
    index: i,
    seed,
    ...(f.hasDefault ? { default: f.default } : {}),
  });
}

/** A value the parameter's kind never accepts: a request carrying it is a 400. */
export function wrongValue(p: ParamModel): unknown {
  return fieldKinds[p.type].wrong;
}
