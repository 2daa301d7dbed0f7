// @slicekit/runtime/crud: what generated slices are built on: the slice module and its discovery,
// entity tables, load/call/save with audit stamping, request validation and route helpers.
// See docs/generated-code.md.
export { asCaller, callerOf, type Caller } from './caller.js';
export { DUPLICATE_TYPE, isUniqueViolation } from './duplicates.js';
export { discoverSlices, type DiscoverSlicesOptions } from './discover.js';
export {
  CrudOptionsError,
  EntityTableDefinitionError,
  INVALID_REQUEST_TYPE,
  invalidRequest,
  NOT_FOUND_TYPE,
  notFound,
  PRECONDITION_FAILED_TYPE,
  preconditionFailed,
  SliceDiscoveryError,
  type FieldError,
} from './errors.js';
export {
  changeEntity,
  checkId,
  deleteEntity,
  insertEntity,
  liveRowsOnly,
  loadEntity,
  loadRow,
  visibleRows,
  type DeletedRows,
} from './repository.js';
export { restoreEntity } from './restore.js';
export { nestedListHandler, type NestedListOptions } from './nested.js';
export { rowConditions, scopeRows, tenantCondition, type RowCondition } from './row-scope.js';
export { sendEntity } from '../http/index.js';
export {
  INVALID_REFERENCE_TYPE,
  isForeignKeyViolation,
  STILL_REFERENCED_TYPE,
} from './references.js';
export {
  callerRows,
  crudRoute,
  deletedRowsAccess,
  describeMapped,
  mappedOps,
  principalOf,
} from './routes.js';
export { RULE_VIOLATION_TYPE, ruleViolated } from './rules.js';
export { mergePatchBody, MERGE_PATCH_MEDIA_TYPE, PATCH_MEDIA_TYPES } from './patch.js';
export { sliceRoute, type BodyOf, type SliceCall, type SliceCallWithBody } from './slice-route.js';
export {
  AUDIT_FIELDS,
  defineEntityTable,
  SOFT_DELETE_FIELDS,
  type EntityTable,
  type EntityTableDefinition,
  type FieldKind,
  type OnDelete,
  type StoredField,
  type TableLink,
  type TableReference,
} from './table.js';
export type { JsonSchema } from '../sql/index.js';
export {
  CRUD_OPS,
  CrudOp,
  type CrudLogger,
  type CrudMapOptions,
  type SliceDeps,
  type SliceDto,
  type SliceModule,
} from './types.js';
export {
  fieldErrors,
  NO_NUL_CHARACTER,
  nulCharacterErrors,
  validateBody,
  type ValidateBodyOptions,
} from './validate.js';
export { DECIMAL_PLACES, decimalPlaces, NOT_BLANK, requestAjv } from '../fields/index.js';
