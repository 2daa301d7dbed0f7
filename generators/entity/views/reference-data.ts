// The view of <entity>.reference-data.ts: the fixed rows, each cell a value as data
// (templates/entity/partials/row.hbs writes them), with a stable id per row.
import type { EntityModel } from '../../model/types.js';
import { stableUuid } from '../samples.js';
import type { SliceBase } from './base.js';
import { columnValue, type Cell } from './values.js';

export function referenceDataView(model: EntityModel, base: SliceBase) {
  const reference = model.referenceData ?? { key: [], rows: [] };
  const seed = model.name.pascal;
  return {
    ...base,
    referenceKey: reference.key.map((f) => f.column),
    referenceKeyNames: reference.key.map((f) => f.name.camel),
    referenceRows: reference.rows.map((row) => {
      const identity = reference.key.map((f) => String(row[f.name.camel])).join(':');
      return model.fields.map((f): Cell => {
        if (f.role === 'id')
          return {
            column: f.column,
            value: { value: stableUuid(`${seed}:reference:${identity}`) },
          };
        if (f.role === 'deletion') return { column: f.column, value: { value: null } };
        if (f.role === 'audit')
          return {
            column: f.column,
            value: f.type === 'date-time' ? { variable: 'appliedOn' } : { value: '' },
          };
        return { column: f.column, value: columnValue(f, row[f.name.camel]) };
      });
    }),
  };
}
