// The view of seeds/<folder>.ts: five sample rows, each cell a value as data
// (templates/entity/partials/row.hbs writes them).
import type { EntityModel, FieldModel } from '../../model/types.js';
import { sampleValue, stableUuid } from '../samples.js';
import type { SliceBase } from './base.js';
import { columnValue, distinctFields, type Cell, type ColumnValue } from './values.js';

const SEED_ROWS = 5;

function seedValue(
  f: FieldModel,
  i: number,
  seed: string,
  unique: boolean,
  base: SliceBase,
): ColumnValue {
  const numbered = base.numbered.find((n) => n.property === f.name.camel);
  if (numbered) return { next: numbered.next, sequence: numbered.constName };
  if (f.role === 'id') return { value: stableUuid(`${seed}:row:${i}`) };
  if (f.role === 'owner') return { value: '' };
  if (f.role === 'audit') return f.type === 'date-time' ? { variable: 'now' } : { value: 'seed' };
  return columnValue(f, sampleValue(f, i, seed, unique));
}

export function seedView(model: EntityModel, base: SliceBase) {
  const unique = distinctFields(model);
  const seed = model.name.pascal;
  return {
    ...base,
    seedRows: Array.from({ length: SEED_ROWS }, (_, i) =>
      model.fields.map((f): Cell => ({
        column: f.column,
        value: seedValue(f, i, seed, unique.has(f), base),
      })),
    ),
    // The audit time stamps are the only seed values that read `now`.
    seedUsesNow: model.fields.some((f) => f.role === 'audit' && f.type === 'date-time'),
  };
}
