// The input of `defineListResource`: the DTO's JSON Schema plus how each property is stored.
import type { JsonSchema } from './schema.js';

/** A joined many-to-one relation backing a nested object member. */
export interface RelationMapping {
  /** The related table. */
  table: string;
  /** Column of the resource's table holding the related key. */
  localColumn: string;
  /** Key column of the related table. @default 'id' */
  foreignColumn?: string;
  /** Column per sub-property of the nested object. @default the snake_case of each sub-property */
  columns?: Record<string, string>;
  /**
   * The related table's owner column, when its rows belong to callers: a caller who does not own
   * the related row gets null, and filters, order and search see no value. @default not owned
   */
  ownerColumn?: string;
  /** Roles that reach every row of the owned related table. @default none */
  ownerBypass?: readonly string[];
  /**
   * The related table's tenant column: a related row of another tenant is as absent as a row
   * another caller owns. @default no tenants
   */
  tenantColumn?: string;
  /** The related table's `deletedOn` column, when it soft-deletes: a deleted row reads as none. */
  deletedColumn?: string;
}

/** A one-to-many child table (or a many-to-many through a join table) backing an array member. */
export interface CollectionMapping {
  /** The child table (for a many-to-many, the table at the other end). */
  table: string;
  /** Column of the child table pointing at the parent; not used with `through`. */
  foreignKey?: string;
  /**
   * A many-to-many: the join table, its column naming the parent (`localKey`) and the one naming
   * the element (`foreignKey`), whose key column is `idColumn` (default `id`).
   */
  through?: { table: string; localKey: string; foreignKey: string; idColumn?: string };
  /** The element table's owner column: only the caller's own elements are listed. */
  ownerColumn?: string;
  /** Roles that reach every element of the owned element table. @default none */
  ownerBypass?: readonly string[];
  /** The element table's tenant column: only elements of the caller's tenant are listed. */
  tenantColumn?: string;
  /** The element table's `deletedOn` column, when it soft-deletes: deleted elements are left out. */
  deletedColumn?: string;
  /** Parent column the foreign key refers to. @default the id property's column */
  localColumn?: string;
  /** For an array of scalars: the child column holding each value. @default 'value' */
  column?: string;
  /** For an array of objects: column per element property. @default snake_case of each */
  columns?: Record<string, string>;
  /**
   * Child column giving the element order (its key or a position).
   * @default the element's own columns, text in code-point order
   */
  orderBy?: string;
}

/**
 * How one DTO property is stored.
 * - a string: the column name;
 * - `false` or `{ computed: true }`: computed or unmapped, never reaches SQL (`value` may compute
 *   it from the row for the response);
 * - `{ json: column }`: an object or array kept as JSON in one column;
 * - `{ relation }`: a nested object from a joined table;
 * - `{ collection }`: an array from a child table.
 */
export type ColumnMapping =
  | string
  | false
  | { column: string }
  | { computed: true; value?: (row: Record<string, unknown>) => unknown }
  | { json: string }
  | { relation: RelationMapping }
  | { collection: CollectionMapping };

/** What `defineListResource` takes. */
export interface ListResourceDefinition {
  /** The table the list reads. */
  table: string;
  /** JSON Schema of the DTO: an object whose camelCase properties carry type/format/enum. */
  dto: JsonSchema;
  /** Per-property storage. @default each property in the snake_case column of its name */
  columns?: Record<string, ColumnMapping>;
  /** The key property, used as the ordering tie-breaker. @default 'id' */
  idProperty?: string;
  /** Audited DTOs order by `createdOn` descending by default. @default false */
  audited?: boolean;
  /** Largest page size; larger requests are clamped to it. @default 100 */
  maxPageSize?: number;
  /** Page size when none (or one below 1) is asked for. @default 20, or maxPageSize if smaller */
  defaultPageSize?: number;
  /**
   * How `totalItemCount` is counted unless the route or the client (`Prefer: count=...`) says:
   * `estimated` counts exactly below `exactCountBelow` rows and estimates above, so a page of a
   * large table never pays for a full count. @default 'estimated'
   */
  count?: 'exact' | 'estimated' | 'none';
  /**
   * Below this many rows `estimated` gives the exact count. @default 10000, and 5000 on SQLite
   * (which keeps no estimate: the bound is read from the index, row by row)
   */
  exactCountBelow?: number;
  /**
   * Most rows a count the client asked for (`Prefer: count=exact`) reads: past it the answer is
   * the database's estimate, so no client can make the list count a huge table in full. A
   * `count: 'exact'` chosen by the resource or route is not bounded (unless the route gives
   * `exactCountMax`).
   * @default 100000
   */
  exactCountMax?: number;
}
