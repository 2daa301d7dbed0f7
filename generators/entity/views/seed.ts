// The view of seeds/<folder>.ts: five sample rows, each cell a value as data
// (templates/entity/partials/row.hbs writes them).
import type { EntityModel, FieldModel } from '../../model/types.js';
import { referenceValues, sampleValue, stableUuid } from '../samples.js';
import { keepRules } from '../rule-samples.js';
import { alignDatesWithStatus } from '../status-dates.js';
import type { SliceBase } from './base.js';
import { checkSeedRow } from './seed-check.js';
import { columnValue, distinctFields, type Cell, type ColumnValue } from './values.js';

const SEED_ROWS = 5;

function seedValue(
  f: FieldModel,
  i: number,
  seed: string,
  sampled: ReadonlyMap<string, unknown>,
  base: SliceBase & { parentSeeds: ReturnType<typeof parentSeeds> },
): ColumnValue {
  const numbered = base.numbered.find((n) => n.property === f.name.camel);
  if (numbered) return { next: numbered.next, sequence: numbered.constName };
  if (f.role === 'id') return { value: stableUuid(`${seed}:row:${i}`) };
  if (f.role === 'owner') return { value: '' };
  if (f.role === 'deletion') return { value: null };
  if (f.role === 'audit') return f.type === 'date-time' ? { variable: 'now' } : { value: 'seed' };
  if (f.reference) {
    // The referenced entity's rows, seeded first; a reference to its own entity stays empty.
    const parent = base.parentSeeds.find((p) => p.entity === f.reference!.entity);
    return parent ? { pick: parent.ids, index: i } : { value: null };
  }
  return columnValue(f, sampled.get(f.name.camel));
}

/** The sample values of row `i`'s plain fields, by property, dates following its status. */
function sampleRow(model: EntityModel, i: number, unique: ReadonlySet<FieldModel>) {
  const seed = model.name.pascal;
  const plain = model.fields.filter((f) => f.role === 'field' && !f.reference);
  const row = new Map(
    plain.map((f) => [
      f.name.camel,
      sampleValue(f, i, seed, unique.has(f), referenceValues(model, f)),
    ]),
  );
  alignDatesWithStatus(
    plain.map((f) => ({
      name: f.name.camel,
      type: f.type,
      values: f.values,
      nullable: !f.notNull,
      unique: unique.has(f),
    })),
    row,
  );
  keepRules(model, row, new Set(plain.filter((f) => !unique.has(f)).map((f) => f.name.camel)));
  checkSeedRow(model, row, i);
  return row;
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
    seedRows: Array.from({ length: SEED_ROWS }, (_, i) => {
      const sampled = sampleRow(model, i, unique);
      return model.fields.map((f): Cell => ({
        column: f.column,
        value: seedValue(f, i, seed, sampled, withParents),
      }));
    }),
    // The audit time stamps are the only seed values that read `now`.
    seedUsesNow: model.fields.some((f) => f.role === 'audit' && f.type === 'date-time'),
  };
}
