// The view of migrations/<name>.ts: the table's columns and indexes as Knex builder calls in data
// (a method and its arguments), which templates/entity/partials/column.hbs writes, and the
// sequences the migration creates.
import { fieldKinds } from '@slicekit/runtime/fields';
import type { EntityModel, FieldModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { foreignKeys, joinTables } from './foreign-keys.js';
import { sequenceOptions } from './sequences.js';
import { isSearchedText } from '../../model/indexes.js';

/** A column: `table.<method>('<name>', ...args)`, then its constraints. */
export interface Column {
  name: string;
  method: string;
  args: unknown[];
  primary: boolean;
  notNullable: boolean;
  hasDefault: boolean;
  defaultTo?: unknown;
  /**
   * Compares byte for byte in `=` and unique indexes on every database (`exactText`); absent
   * otherwise, so the table snapshots of earlier upgrades stay equal.
   */
  exact?: true;
}

/**
 * `table.<method>(columns)`: an index or a unique constraint; a unique text column's index is
 * made by the runtime's `uniqueIndexMigration` instead (`text`: exact or ignoring case), the same
 * comparison on every database. An index of a schema.json from before has no `text`.
 */
export interface TableIndex {
  method: 'index' | 'unique';
  columns: string[];
  text?: 'exact' | 'ignoreCase';
}

/** The index of a unique field: its text's comparison when it holds text. */
function uniqueIndex(f: FieldModel): TableIndex {
  if (f.sequence || !isSearchedText(f)) return { method: 'unique', columns: [f.column] };
  return { method: 'unique', columns: [f.column], text: f.ignoreCase ? 'ignoreCase' : 'exact' };
}

function column(f: FieldModel, tenant = false): Column {
  // The field kind's own column (the runtime's field-kind registry); a kind whose literal default
  // a database refuses keeps its default in the entity's constructor only.
  const { method, args, literalDefault = true } = fieldKinds[f.type].column(f);
  const hasDefault = f.hasDefault && f.default !== null && literalDefault;
  return {
    name: f.column,
    method,
    args: [...args],
    primary: f.role === 'id',
    notNullable: f.notNull,
    hasDefault,
    ...(hasDefault ? { defaultTo: f.default } : {}),
    ...(f.role === 'tenant' || (tenant && f.unique && isSearchedText(f))
      ? { exact: true as const }
      : {}),
  };
}

/**
 * A list index over the live rows of a soft-deleting table (the runtime's liveIndexMigration): a
 * partial index on PostgreSQL and SQLite, the deleted-on column after `scope` on MySQL.
 */
export interface LiveIndex {
  /** The columns a scoped list compares by equality: the tenant, then the owner. */
  scope: string[];
  columns: string[];
  /** Only for counting the scope's live rows: left out where it does not pay (the runtime's). */
  counts?: true;
}

/** An index of the entity's own, before the tenant leads it; `list`: one a list reads. */
interface OwnIndex extends TableIndex {
  /** Compared by equality before `columns` (the owner). */
  scope?: string[];
  list?: true;
}

const TENANT_COLUMN = 'tenant_id';

/**
 * The indexes Knex makes (`plain`) and the list indexes over live rows (`live`). A tenant entity's
 * indexes lead with its tenant column: every query of it is confined to one tenant, and a unique
 * field holds each value once per tenant. A sequence's numbers stay unique across tenants: one
 * sequence hands them out. A soft-deleting entity's list indexes cover its live rows only, so a
 * list and its count never read past deleted rows; a reference's index stays whole, as the
 * database's own foreign key checks read deleted rows too.
 */
function tableIndexes(model: EntityModel): { plain: TableIndex[]; live: LiveIndex[] } {
  const tenant = model.tenant ? [TENANT_COLUMN] : [];
  const numbered = new Set(model.fields.filter((f) => f.sequence).map((f) => f.column));
  const plain: TableIndex[] = [];
  const live: LiveIndex[] = [];
  for (const { scope: own = [], list, ...index } of ownIndexes(model)) {
    const scope = [...tenant, ...own];
    if (model.softDelete && list) live.push({ scope, columns: index.columns });
    else if (index.method === 'unique' && index.columns.every((c) => numbered.has(c))) {
      plain.push(index);
    } else if (!model.tenant) plain.push({ ...index, columns: [...scope, ...index.columns] });
    // A tenant's unique text compares exactly as the tenant does (its column is exactText), in a
    // plain unique index led by the tenant.
    else plain.push({ method: index.method, columns: [...scope, ...index.columns] });
  }
  const led = [...plain.map((i) => i.columns[0]), ...live.map((i) => i.scope[0])];
  // A soft-deleting tenant's live rows, counted: a list's count reads every live row of the
  // caller's tenant, and an index of the tenant alone holds them in a few pages where the
  // database deduplicates equal values (PostgreSQL), about what a count of a table without
  // tenants reads (docs/access.md, "What the scope costs").
  if (model.tenant && model.softDelete && led.includes(TENANT_COLUMN)) {
    return { plain, live: [{ scope: tenant, columns: [], counts: true }, ...live] };
  }
  if (!model.tenant || led.includes(TENANT_COLUMN)) return { plain, live };
  return model.softDelete
    ? { plain, live: [{ scope: tenant, columns: [] }, ...live] }
    : { plain: [{ method: 'index', columns: tenant }, ...plain], live };
}

function ownIndexes(model: EntityModel): OwnIndex[] {
  const reference = model.referenceData;
  // The default order of a list: newest first, the id breaking ties (`created_on desc, id desc`);
  // an owned entity's list reads the caller's rows only, in that order.
  const order = model.audited ? ['created_on', 'id'] : [];
  return [
    ...(order.length ? [{ method: 'index', columns: order, list: true } as OwnIndex] : []),
    ...(model.owned
      ? [{ method: 'index', scope: ['owned_by'], columns: order, list: true } as OwnIndex]
      : []),
    // Reference rows are found by their key, which must identify one row.
    ...(reference
      ? [{ method: 'unique', columns: reference.key.map((f) => f.column) } as TableIndex]
      : []),
    // A sequence never hands out a value twice, and a unique field holds each value once: the
    // index says so (and finds a row by it).
    // (Under soft delete, a unique field's value is unique among live rows: see liveUnique.)
    ...model.fields.filter((f) => f.sequence || (f.unique && !model.softDelete)).map(uniqueIndex),
    // A reference column is looked up to list, check and delete rows by their referenced row; a
    // filterable field is looked up by its value; a sortable one is read in order, id breaking
    // ties as in the list's order.
    ...model.fields
      .filter((f) => !f.unique && !f.sequence && (f.reference || f.sortable || f.filterable))
      .map((f): OwnIndex => ({
        method: 'index',
        columns: f.sortable ? [f.column, 'id'] : [f.column],
        ...(f.reference ? {} : { list: true as const }),
      })),
  ];
}

/**
 * The columns of the search index: the text members of the DTO the list's `search` matches (the
 * runtime's searchIndexMigration makes it: a trigram GIN index on PostgreSQL, an FTS5 trigram
 * table kept by triggers on SQLite, nothing on MySQL). Empty when the spec opts out.
 */
export function searchColumns(model: EntityModel): string[] {
  return model.searchIndex ? model.dto.filter(isSearchedText).map((f) => f.column) : [];
}

/**
 * The unique fields of a soft-deleting entity, each unique among its live rows only (the
 * runtime's liveUniqueMigration: a partial unique index on PostgreSQL and SQLite, a unique index
 * over a generated live marker on MySQL), so a deleted row's value can be taken again.
 */
export function liveUniqueColumns(model: EntityModel): string[][] {
  if (!model.softDelete) return [];
  // A tenant's values are unique within it (its unique indexes lead with the tenant).
  const tenant = model.tenant ? [TENANT_COLUMN] : [];
  return model.fields.filter((f) => f.unique && !f.sequence).map((f) => [...tenant, f.column]);
}

export function migrationView(model: EntityModel, base: SliceBase, migrationName: string) {
  const { plain, live } = tableIndexes(model);
  return {
    ...base,
    migrationName,
    columns: model.fields.map((f) => column(f, model.tenant)),
    hasExactText: model.tenant,
    indexes: plain,
    liveIndexes: live,
    uniqueTexts: plain.flatMap((i) =>
      i.text
        ? [
            {
              table: model.table,
              column: i.columns[0]!,
              ...(i.text === 'ignoreCase' ? { ignoreCase: true } : {}),
            },
          ]
        : [],
    ),
    searchColumns: searchColumns(model),
    liveUnique: liveUniqueColumns(model),
    databaseImports: [
      ...(model.tenant ? ['exactText'] : []),
      ...(live.length ? ['liveIndexMigration'] : []),
      ...(liveUniqueColumns(model).length ? ['liveUniqueMigration'] : []),
      ...(searchColumns(model).length ? ['searchIndexMigration'] : []),
      ...(plain.some((i) => i.text) ? ['uniqueIndexMigration'] : []),
    ].join(', '),
    sequences: model.fields.filter((f) => f.sequence).map(sequenceOptions),
    foreignKeys: foreignKeys(model),
    joinTables: joinTables(model),
  };
}
