// The resolved description of a DTO: one member per property, saying how it is stored and what a
// list query may do with it. Built once by `defineListResource`.
import type { ValueType } from '../sql/index.js';

/** The scalar types a filter value is coerced to: every value type but JSON documents. */
export type ScalarType = Exclude<ValueType, 'json'>;

/** A plain column of the resource's table: the only kind that can be filtered and ordered. */
export interface ScalarMember {
  readonly kind: 'scalar';
  readonly property: string;
  readonly type: ScalarType;
  /** Allowed values of an `enum` member, as the DTO schema lists them. */
  readonly enumValues?: readonly (string | number)[];
  readonly column: string;
  /** False when the schema rules out null; the order then needs no NULLS FIRST/LAST. */
  readonly nullable: boolean;
}

/** A sub-member of a nested object or of a collection element. */
export interface SubMember {
  readonly property: string;
  readonly type: ScalarType | 'opaque';
  /** Column of the joined/child table, or key inside the JSON document. */
  readonly source: string;
  /** Allowed values of an `enum` sub-member. */
  readonly enumValues?: readonly (string | number)[];
}

/** An object (or array/dictionary) stored as JSON in one column; parsed on the way out. */
export interface JsonMember {
  readonly kind: 'json';
  readonly property: string;
  readonly column: string;
  /**
   * `object`: its text sub-members are searched; `array`: its text elements (`elementType`) or
   * the text members of its object elements (`members`) are searched with an any-match;
   * `dictionary`: never searched.
   */
  readonly shape: 'object' | 'array' | 'dictionary';
  /** Sub-members of the object, or of each object element of the array. */
  readonly members: readonly SubMember[];
  /** For an array of scalars: the elements' type. */
  readonly elementType?: ScalarType | 'opaque';
  /**
   * Under `select=meta.label`: the document (or each object element) is cut down to the keys of
   * `members` before it is answered. @default false: the document as stored
   */
  readonly picked?: boolean;
}

/** A many-to-one relation: a LEFT JOIN on another table, one object per row. */
export interface RelationMember {
  readonly kind: 'relation';
  readonly property: string;
  readonly table: string;
  /** Alias of the joined table in the list query (`r_<property>`). */
  readonly alias: string;
  readonly localColumn: string;
  readonly foreignColumn: string;
  readonly members: readonly SubMember[];
  /** The related table's owner column: only the caller's own related row is joined. */
  readonly ownerColumn?: string;
  /** Roles that reach every row of the owned related table. */
  readonly ownerBypass?: readonly string[];
  /** The related table's tenant column: only a related row of the caller's tenant is joined. */
  readonly tenantColumn?: string;
  /** The related table's `deletedOn` column: only a live related row is joined. */
  readonly deletedColumn?: string;
  /**
   * Whether a row may have no related row: the schema admits null or does not require the member.
   * Otherwise (and when not owned) the list joins it with an INNER JOIN, which the database may
   * read in either order.
   */
  readonly nullable: boolean;
}

/** A one-to-many child collection: searched with EXISTS, loaded with one query per page. */
export interface CollectionMember {
  readonly kind: 'collection';
  readonly property: string;
  readonly table: string;
  /** The child's column naming the parent (with `through`, the join table's). */
  readonly foreignKey: string;
  readonly localColumn: string;
  /** A many-to-many: the join table between the parent and `table`. */
  readonly through?: { table: string; localKey: string; foreignKey: string; idColumn: string };
  /** The element table's owner column: only the caller's own elements are listed. */
  readonly ownerColumn?: string;
  /** Roles that reach every element of the owned element table. */
  readonly ownerBypass?: readonly string[];
  /** The element table's tenant column: only elements of the caller's tenant are listed. */
  readonly tenantColumn?: string;
  /** The element table's `deletedOn` column: only live elements are listed. */
  readonly deletedColumn?: string;
  /** For an array of scalars: the child column holding each value. */
  readonly valueColumn?: string;
  readonly valueType?: ScalarType | 'opaque';
  /** For an array of objects: the element's members. */
  readonly members: readonly SubMember[];
  /** Child columns ordering the elements, with their types. */
  readonly order: readonly { column: string; type: ScalarType | 'opaque' }[];
}

/** A byte array column: returned as base64, never filtered, searched or ordered. */
export interface BytesMember {
  readonly kind: 'bytes';
  readonly property: string;
  readonly column: string;
}

/** Computed or unmapped: never reaches SQL; `value` (when given) computes it from the row. */
export interface ComputedMember {
  readonly kind: 'computed';
  readonly property: string;
  readonly value?: (row: Record<string, unknown>) => unknown;
}

export type Member =
  ScalarMember | JsonMember | RelationMember | CollectionMember | BytesMember | ComputedMember;

/** Words for a member kind, used in problem reasons. */
export function describeKind(member: Member): string {
  switch (member.kind) {
    case 'scalar':
      return `${/^[aeiou]/.test(member.type) ? 'an' : 'a'} ${member.type} field`;
    case 'json':
      return member.shape === 'object' ? 'a nested object' : `a JSON ${member.shape}`;
    case 'relation':
      return 'a nested object';
    case 'collection':
      return 'a collection';
    case 'bytes':
      return 'a byte array';
    case 'computed':
      return 'computed (it has no column)';
  }
}
