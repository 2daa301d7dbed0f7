// `defineListResource`: resolves a DTO schema and its column mapping into members, validates the
// whole definition at start-up, and exposes `toDto`.
import { tagRepresentation } from '../http/index.js';
import type { ColumnMapping, ListResourceDefinition } from './definition.js';
import { ListResourceDefinitionError } from './errors.js';
import type { Member, ScalarMember } from './members.js';
import { fieldKey, snakeCase } from './names.js';
import { pathKey, queryTargets, type QueryTarget } from './paths.js';
import { collectionMember, relationMember, subMembers } from './relation-members.js';
import { isNullable, shapeOf, type JsonSchema } from './schema.js';
import { rowToDto } from './to-dto.js';
import { CountModes, type CountMode } from './types.js';

/** A validated DTO description the engine resolves list queries against. */
export interface ListResource<Dto = Record<string, unknown>> {
  readonly table: string;
  readonly idProperty: string;
  readonly audited: boolean;
  readonly maxPageSize: number;
  readonly defaultPageSize: number;
  /** How `totalItemCount` is counted by default. */
  readonly count: CountMode;
  /** Below this many rows `estimated` counts exactly; undefined: the dialect's bound. */
  readonly exactCountBelow: number | undefined;
  /** Most rows a client's `Prefer: count=exact` reads; past it the answer is the estimate. */
  readonly exactCountMax: number;
  /** Every DTO property, in schema order. */
  readonly members: readonly Member[];
  /** The member a field name resolves to (any casing/separator style), if any. */
  member(name: string): Member | undefined;
  /**
   * What a filter or `orderBy` names: a scalar member, or by a dotted path (`customer.name`,
   * `tags.name`) a scalar sub-member of a nested object or of a collection's elements.
   */
  target(name: string): QueryTarget | undefined;
  /** The id member (always a mapped scalar). */
  readonly idMember: ScalarMember;
  /** `createdOn` of an audited resource. */
  readonly createdOnMember?: ScalarMember;
  /** Names of the members filters and `orderBy` accept, for problem messages. */
  readonly queryableFields: readonly string[];
  /**
   * Maps a database row (as the list query selects it) to the DTO the list returns; a row the
   * CRUD repository loaded gives it an entity tag covering the row and what the DTO nests
   * (`sendEntity` sends it as `ETag`).
   */
  toDto(row: Record<string, unknown>): Dto;
}

const DEFAULT_MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;
const DEFAULT_EXACT_COUNT_MAX = 100_000;

function resolveMember(
  property: string,
  schema: JsonSchema,
  mapping: ColumnMapping | undefined,
  problems: string[],
  required: ReadonlySet<string>,
): Member | undefined {
  const shape = shapeOf(schema);
  const at = `dto property "${property}"`;
  if (mapping === false || (typeof mapping === 'object' && 'computed' in mapping)) {
    const value = mapping && typeof mapping.value === 'function' ? mapping.value : undefined;
    return value ? { kind: 'computed', property, value } : { kind: 'computed', property };
  }
  if (shape.shape === 'unknown') {
    problems.push(`${at}: ${shape.why}; map it as { computed: true } or fix the schema`);
    return undefined;
  }
  const column =
    typeof mapping === 'string'
      ? mapping
      : mapping && 'column' in mapping
        ? mapping.column
        : undefined;
  if (typeof mapping === 'object' && mapping !== null && 'relation' in mapping) {
    const nullable = isNullable(schema) || !required.has(property);
    return relationMember(property, shape, mapping.relation, problems, nullable);
  }
  if (typeof mapping === 'object' && mapping !== null && 'collection' in mapping) {
    return collectionMember(property, shape, mapping.collection, problems);
  }
  const jsonColumn =
    typeof mapping === 'object' && mapping !== null && 'json' in mapping ? mapping.json : undefined;
  switch (shape.shape) {
    case 'scalar':
      if (jsonColumn !== undefined) {
        problems.push(`${at}: a scalar cannot be mapped to a JSON column; give its column`);
        return undefined;
      }
      return {
        kind: 'scalar',
        property,
        type: shape.type,
        ...(shape.enumValues ? { enumValues: shape.enumValues } : {}),
        column: column ?? snakeCase(property),
        nullable: isNullable(schema) || !required.has(property),
      };
    case 'bytes':
      return { kind: 'bytes', property, column: column ?? snakeCase(property) };
    case 'object':
    case 'dictionary':
      return {
        kind: 'json',
        property,
        column: jsonColumn ?? column ?? snakeCase(property),
        shape: shape.shape,
        members:
          shape.shape === 'object'
            ? subMembers(shape.properties, undefined, problems, at, (key) => key)
            : [],
      };
    case 'array': {
      const items = shapeOf(shape.items);
      return {
        kind: 'json',
        property,
        column: jsonColumn ?? column ?? snakeCase(property),
        shape: 'array',
        ...(items.shape === 'object'
          ? { members: subMembers(items.properties, undefined, problems, at, (key) => key) }
          : { members: [], elementType: items.shape === 'scalar' ? items.type : 'opaque' }),
      };
    }
  }
}

// Names are spliced into SQL (quoted) and JSON paths, so they are held to plain identifiers.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

function checkIdentifiers(table: string, members: readonly Member[], problems: string[]): void {
  const check = (name: string, where: string) => {
    if (!IDENTIFIER.test(name)) problems.push(`${where} "${name}" is not a plain SQL identifier`);
  };
  if (table) for (const part of table.split('.')) check(part, 'table');
  for (const m of members) {
    const at = `dto property "${m.property}"`;
    if (m.kind === 'scalar' || m.kind === 'json' || m.kind === 'bytes')
      check(m.column, `${at} column`);
    if (m.kind === 'relation' || m.kind === 'collection') {
      for (const part of m.table.split('.')) check(part, `${at} table`);
      check(m.property, at);
      for (const s of m.members) check(s.source, `${at} sub-member column`);
    }
    if (m.kind === 'json') for (const s of m.members) check(s.source, `${at} JSON key`);
    if (m.kind === 'relation')
      [m.localColumn, m.foreignColumn].forEach((c) => check(c, `${at} column`));
    if ((m.kind === 'relation' || m.kind === 'collection') && m.ownerColumn)
      check(m.ownerColumn, `${at} owner column`);
    if ((m.kind === 'relation' || m.kind === 'collection') && m.tenantColumn)
      check(m.tenantColumn, `${at} tenant column`);
    if ((m.kind === 'relation' || m.kind === 'collection') && m.deletedColumn)
      check(m.deletedColumn, `${at} deleted column`);
    if (m.kind === 'collection' && m.through) {
      for (const part of m.through.table.split('.')) check(part, `${at} join table`);
      [m.through.foreignKey, m.through.idColumn].forEach((c) => check(c, `${at} column`));
    }
    if (m.kind === 'collection') {
      check(m.foreignKey, `${at} column`);
      if (m.localColumn) check(m.localColumn, `${at} column`);
      if (m.valueColumn) check(m.valueColumn, `${at} value column`);
      for (const o of m.order) check(o.column, `${at} order column`);
    }
  }
}

/**
 * Describes a DTO for the list-query engine. Throws `ListResourceDefinitionError` listing every
 * problem, so a broken definition stops the app at start-up.
 *
 * @example
 * const products = defineListResource({ table: 'products', dto: productDtoSchema, audited: true });
 */
export function defineListResource<Dto = Record<string, unknown>>(
  definition: ListResourceDefinition,
): ListResource<Dto> {
  const problems: string[] = [];
  const table = typeof definition?.table === 'string' ? definition.table : '';
  if (!table) problems.push('table must be a non-empty string');
  const properties = definition?.dto?.properties;
  if (!properties || typeof properties !== 'object' || Object.keys(properties).length === 0) {
    throw new ListResourceDefinitionError(table || '?', [
      ...problems,
      'dto must be a JSON Schema object with properties',
    ]);
  }
  const columns = definition.columns ?? {};
  for (const key of Object.keys(columns)) {
    if (!(key in properties)) problems.push(`columns.${key} names no DTO property`);
  }
  // NULLS FIRST/LAST (which can cost PostgreSQL its index) is left out only for members the
  // schema both requires and types without null.
  const required = new Set(
    Array.isArray(definition.dto.required) ? (definition.dto.required as string[]) : [],
  );
  const members: Member[] = [];
  const byKey = new Map<string, Member>();
  for (const [property, schema] of Object.entries(properties)) {
    const member = resolveMember(property, schema, columns[property], problems, required);
    if (!member) continue;
    const key = fieldKey(property);
    const clash = byKey.get(key);
    if (clash) {
      problems.push(`dto properties "${clash.property}" and "${property}" normalise to one name`);
    }
    byKey.set(key, member);
    members.push(member);
  }

  const idProperty = definition.idProperty ?? 'id';
  const idMember = byKey.get(fieldKey(idProperty));
  if (!idMember || idMember.kind !== 'scalar') {
    problems.push(`idProperty "${idProperty}" must be a mapped scalar property of the DTO`);
  }
  const audited = definition.audited ?? false;
  const createdOn = byKey.get('createdon');
  if (audited && (!createdOn || createdOn.kind !== 'scalar')) {
    problems.push('audited DTOs need a mapped createdOn property (the default order)');
  }
  const maxPageSize = definition.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE;
  if (!Number.isSafeInteger(maxPageSize) || maxPageSize < 1) {
    problems.push('maxPageSize must be a whole number of at least 1');
  }
  const defaultPageSize = definition.defaultPageSize ?? Math.min(DEFAULT_PAGE_SIZE, maxPageSize);
  if (!Number.isSafeInteger(defaultPageSize) || defaultPageSize < 1) {
    problems.push('defaultPageSize must be a whole number of at least 1');
  } else if (defaultPageSize > maxPageSize) {
    problems.push('defaultPageSize must not exceed maxPageSize');
  }
  const count = definition.count ?? 'estimated';
  if (!(CountModes as readonly string[]).includes(count)) {
    problems.push(`count must be one of ${CountModes.join(', ')}`);
  }
  const exactCountBelow = definition.exactCountBelow;
  if (
    exactCountBelow !== undefined &&
    (!Number.isSafeInteger(exactCountBelow) || exactCountBelow < 0)
  ) {
    problems.push('exactCountBelow must be a whole number of at least 0');
  }
  const exactCountMax = definition.exactCountMax ?? DEFAULT_EXACT_COUNT_MAX;
  if (!Number.isSafeInteger(exactCountMax) || exactCountMax < 1) {
    problems.push('exactCountMax must be a whole number of at least 1');
  }
  for (const member of members) {
    if (member.kind === 'collection' && !member.localColumn && idMember?.kind !== 'scalar') {
      problems.push(`collection "${member.property}" needs localColumn (no id column)`);
    }
  }
  checkIdentifiers(table, members, problems);
  if (problems.length > 0) throw new ListResourceDefinitionError(table || '?', problems);

  const id = idMember as ScalarMember;
  const resolved = members.map((m) =>
    m.kind === 'collection' && !m.localColumn
      ? { ...m, localColumn: id.column }
      : m === id
        ? { ...id, nullable: false }
        : m,
  );
  const resolvedByKey = new Map(resolved.map((m) => [fieldKey(m.property), m]));
  const targets = queryTargets(resolved);
  // What a DTO nests beside the row's own columns: its entity tag covers them as sent.
  const nested = resolved
    .filter((m) => m.kind === 'relation' || m.kind === 'collection')
    .map((m) => m.property);
  return {
    table,
    idProperty: id.property,
    audited,
    maxPageSize,
    defaultPageSize,
    count,
    exactCountBelow,
    exactCountMax,
    members: resolved,
    member: (name) => resolvedByKey.get(fieldKey(name)),
    target: (name) => targets.get(pathKey(name)),
    idMember: resolved.find((m) => m.property === id.property) as ScalarMember,
    ...(audited ? { createdOnMember: createdOn as ScalarMember } : {}),
    queryableFields: [...new Set([...targets.values()].map((t) => t.member.property))],
    // A row the CRUD repository loaded carries its tag source; the DTO of it is tagged once.
    toDto: (row) => tagRepresentation(rowToDto(resolved, row) as object, row, nested) as Dto,
  };
}
