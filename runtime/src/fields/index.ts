// @slicekit/runtime/fields: the field-kind registry the generator and the runtime share (column,
// JSON Schema, TypeScript type, value checks, stored-value reading and samples of each kind).
export type {
  ColumnSpec,
  ConstraintKey,
  FieldConstraints,
  FieldKindDefinition,
  SampleContext,
} from './kind.js';
export {
  FIELD_KINDS,
  fieldDefaults,
  fieldKind,
  fieldKinds,
  isFieldKind,
  type FieldKind,
} from './kinds.js';
export { stableUuid } from './samples.js';
export { DECIMAL_PLACES, decimalPlaces, NOT_BLANK, requestAjv } from './request-ajv.js';
export { readStored, writeStored, type ValueType } from '../sql/index.js';
export type { JsonSchema } from '../sql/index.js';
