// The list-query engine: paging, filters, search and ordering from the query string, on Knex,
// with the same results on PostgreSQL, MySQL/MariaDB and SQLite. See docs/list-query.md.
export { buildListQueries, type ListQueries, type ListQueryBuildOptions } from './compile.js';
export type {
  CollectionMapping,
  ColumnMapping,
  ListResourceDefinition,
  RelationMapping,
} from './definition.js';
export { sqlFamily as dialectName, type DialectName } from '../sql/index.js';
export {
  INVALID_LIST_QUERY_TYPE,
  invalidListQuery,
  ListResourceDefinitionError,
  type ListQueryProblemContext,
} from './errors.js';
export { listHandler, type ListHandlerOptions, type ListLogger } from './handler.js';
export type { Member, ScalarMember, ScalarType } from './members.js';
export { fieldKey, snakeCase } from './names.js';
export {
  LIST_PARAMETERS,
  MAX_FILTERS,
  MAX_FILTER_LENGTH,
  MAX_PAGE_NUMBER,
  MAX_SEARCH_LENGTH,
  MIN_SEARCH_LENGTH,
  parseListQuery,
  type ParseListQueryOptions,
} from './parse.js';
export { MAX_IN_ELEMENTS } from './parse-filter.js';
export { MAX_GROUP_DEPTH, MAX_GROUPS } from './parse-groups.js';
export { MAX_SELECTED } from './select.js';
export { defineListResource, type ListResource } from './resource.js';
export type { QueryTarget } from './paths.js';
export { loadCollections, loadRelated } from './related.js';
export { runListQuery, type RunListQueryOptions } from './run.js';
export type { JsonSchema } from './schema.js';
export { listQueryAfterCreate, registerSqliteFunctions } from '../sql/index.js';
export { MAX_CURSOR_LENGTH } from './cursor.js';
export { preferredCount } from './count.js';
export {
  CountModes,
  type CountMode,
  type ListCursor,
  type TotalItemCountKind,
  FilterOperations,
  type DateOnlyRange,
  type FilterOperation,
  type FilterScalar,
  type ListFilter,
  type ListFilterGroup,
  type ListQuery,
  type PagedResponse,
} from './types.js';
