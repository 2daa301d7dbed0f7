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
  base: SliceBase & { parentSeeds: ReturnType<typeof parentSeeds> },
): ColumnValue {
  const numbered = base.numbered.find((n) => n.property === f.name.camel);
  if (numbered) return { next: numbered.next, sequence: numbered.constName };
  if (f.role === 'id') return { value: stableUuid(`${seed}:row:${i}`) };
  if (f.role === 'owner') return { value: '' };
  if (f.role === 'audit') return f.type === 'date-time' ? { variable: 'now' } : { value: 'seed' };
  if (f.reference) {
    // The referenced entity's rows, seeded first; a reference to its own entity stays empty.
    const parent = base.parentSeeds.find((p) => p.entity === f.reference!.entity);
    return parent ? { pick: parent.ids, index: i } : { value: null };
  }
  return columnValue(f, sampleValue(f, i, seed, unique));
}

/** The seeds of the entities `model` references, run first: their function and id list. */
function parentSeeds(model: EntityModel) {
  const targets = [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])]
    .map((r) => r.target)
    .filter((t) => t.name.pascal !== model.name.pascal);
  return targets
    .filter((t, i) => targets.findIndex((o) => o.name.pascal === t.name.pascal) === i)
    .map((t) => ({
      entity: t.name.pascal,
      fn: `seed${t.plural.pascal}`,
      folder: t.folder,
      table: t.table,
      ids: `${t.name.camel}Ids`,
      words: t.plural.words,
    }));
}

export function seedView(model: EntityModel, base: SliceBase) {
  const unique = distinctFields(model);
  const seed = model.name.pascal;
  const parents = parentSeeds(model);
  const withParents = { ...base, parentSeeds: parents };
  const ids = Array.from({ length: SEED_ROWS }, (_, i) => stableUuid(`${seed}:row:${i}`));
  return {
    ...base,
    parentSeeds: parents,
    // A many-to-many's join rows: each seeded row names one row of the other side, in turn.
    linkSeeds: (model.relations?.links ?? []).flatMap(({ target, joinTable }) => {
      const parent = parents.find((p) => p.entity === target.name.pascal);
      if (!parent) return [];
      return [
        {
          table: joinTable.table,
          rows: ids.map((id, i) => [
            { column: joinTable.localKey, value: { value: id } },
            { column: joinTable.foreignKey, value: { pick: parent.ids, index: i } },
          ]),
        },
      ];
    }),
    seedRows: Array.from({ length: SEED_ROWS }, (_, i) =>
      model.fields.map((f): Cell => ({
        column: f.column,
        value: seedValue(f, i, seed, unique.has(f), withParents),
      })),
    ),
    // The audit time stamps are the only seed values that read `now`.
    seedUsesNow: model.fields.some((f) => f.role === 'audit' && f.type === 'date-time'),
  };
}
