// What a field kind is: everything the generator and the runtime need to know about one kind of
// field (string, decimal, email...), found together in one registry entry (kinds.ts).
import type { JsonSchema, ValueType } from '../sql/index.js';

/** The constraints a spec may give a field or a parameter. */
export interface FieldConstraints {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  precision?: number;
  scale?: number;
  values?: readonly string[];
}

export type ConstraintKey = keyof FieldConstraints;

/** A Knex column builder call: `table.<method>(name, ...args)`, the arguments as plain values. */
export interface ColumnSpec {
  readonly method: string;
  readonly args: readonly unknown[];
  /**
   * Whether a default may be declared on the column. MySQL refuses literal defaults on TEXT and
   * JSON, and date-time literals differ per database: such defaults live in the entity's
   * constructor only. @default true
   */
  readonly literalDefault?: boolean;
}

/** Which field and row a sample value is for. */
export interface SampleContext {
  /** The property name, camelCase (`customerEmail`). */
  readonly name: string;
  /** The row (0 for the first). */
  readonly index: number;
  /** A text that makes derived values (UUIDs) stable between runs, e.g. the entity name. */
  readonly seed: string;
  /** The field's declared default, which the first sample shows where it fits. */
  readonly default?: unknown;
  /**
   * Whether every row must get a value of its own (a unique field, a reference-data key): the
   * sample then differs on every row, even where the constraints would cut realistic ones short.
   */
  readonly distinct?: boolean;
  /**
   * A realistic value proposed for the field (the generator draws one from the field's name and
   * entity): the kind keeps it, fitted to the constraints, and answers its own plain value
   * without one. The caller checks the result against `problem` and the row's other values.
   */
  readonly proposal?: unknown;
}

/** One kind of field. */
export interface FieldKindDefinition {
  /** How values travel: how rows are read back and list filters coerced. */
  readonly value: ValueType;
  /** The constraints a field of this kind may declare. */
  readonly constraints: readonly ConstraintKey[];
  /** Constraints a field of this kind has when the spec gives none. @default {} */
  readonly defaults?: FieldConstraints;
  /**
   * What the one-line form takes in parentheses: `string(150)`, `decimal(12,2)`, `enum(a|b)`,
   * `reference(Customer)`.
   */
  readonly argument?: 'maxLength' | 'precision' | 'values' | 'entity';
  /**
   * Whether a value names a row of another entity (a foreign key): its samples are ids of rows
   * the seeds and tests create first, and its spec names the entity. @default false
   */
  readonly relation?: boolean;
  /** The Knex column of a field. */
  column(c: FieldConstraints): ColumnSpec;
  /**
   * Whether the column can carry an index on every database (a unique field needs one): MySQL
   * indexes no TEXT or JSON column whole. @default true
   */
  readonly indexable?: boolean;
  /**
   * The JSON Schema of a value (null aside). `request` adds every limit a request body is held to,
   * so the database never truncates, rounds or overflows what a request sends.
   */
  schema(c: FieldConstraints, request: boolean): JsonSchema;
  /** The TypeScript type of a value in JSON. */
  jsonType(c: FieldConstraints): string;
  /** The TypeScript type of a value on the entity. @default jsonType */
  entityType?(c: FieldConstraints): string;
  /** Why `value` (not null) cannot be a value of a field with `c`; undefined when it can. */
  problem(value: unknown, c: FieldConstraints): string | undefined;
  /** A realistic value for row `index` of seeds and generated tests, within the constraints. */
  sample(c: FieldConstraints, at: SampleContext): unknown;
  /** A value a request may never carry for this kind: a generated test expects 400 for it. */
  readonly wrong: unknown;
}
