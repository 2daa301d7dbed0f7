// The view of <entity>.table.ts: the stored fields by type, and the events a save raises as data.
import type { EntityModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { tableRelations } from './table-relations.js';

export function tableView(model: EntityModel, base: SliceBase) {
  const id = model.fields.find((f) => f.role === 'id')!;
  return {
    ...base,
    ...tableRelations(model),
    storedFields: [id, ...model.fields.filter((f) => f.role === 'field')].map((f) => ({
      name: f.name.camel,
      type: f.type,
    })),
    // Each unique index of the migration, by property: a duplicate answers 409 naming them.
    uniqueGroups: [
      ...(model.referenceData ? [model.referenceData.key.map((f) => f.name.camel)] : []),
      ...model.fields.filter((f) => f.unique || f.sequence).map((f) => [f.name.camel]),
    ],
    ignoreCase: model.fields.filter((f) => f.ignoreCase).map((f) => f.name.camel),
  };
}
