// An index's steps in a migration: a line of Knex's `alterTable`, or, for a unique text column,
// the runtime's `uniqueIndexMigration` (exact or ignoring case, the same on every database).
import type { LiveIndex, TableIndex } from '../entity/views/migration.js';
import type { Line, Step, UniqueTextIndex } from './step-types.js';

/** `unique (email) ignoring case`. */
export const indexLabel = (index: TableIndex) =>
  `${index.method} (${index.columns.join(', ')})${index.text === 'ignoreCase' ? ' ignoring case' : ''}`;

/** `(tenant_id, created_on, id)`: a list index over live rows. */
export const liveLabel = (index: LiveIndex) => `(${[...index.scope, ...index.columns].join(', ')})`;

/** A text column's unique index as `uniqueIndexMigration` takes it, when the index is one. */
export function uniqueTextIndex(table: string, index: TableIndex): UniqueTextIndex | undefined {
  if (!index.text) return undefined;
  return {
    table,
    column: index.columns[0]!,
    ...(index.text === 'ignoreCase' ? { ignoreCase: true } : {}),
  };
}

/** The step making or dropping `index`: a line of `alterTable`, or the runtime's text index. */
export function indexStep(table: string, index: TableIndex, up: boolean): Step {
  const text = uniqueTextIndex(table, index);
  if (text) return { uniqueIndex: { ...text, up } };
  const line: Line = up ? { index } : { dropIndex: index };
  return { alterTable: { table, lines: [line] } };
}
