// The join tables of two states of a slice's table: those dropped, with every link in them, and
// those added; and the rule a required many-to-many puts on the rows the table already holds.
import type { JoinTable } from '../entity/views/foreign-keys.js';
import type { DataRisk, DiffOptions, SchemaChange } from './changes.js';

/** The join table changes between `before` and `after`, and the data or rules they put at risk. */
export function diffJoinTables(
  before: readonly JoinTable[],
  after: readonly JoinTable[],
  requiredLinks: DiffOptions['requiredLinks'],
): { changes: SchemaChange[]; risks: DataRisk[] } {
  const changes: SchemaChange[] = [];
  const risks: DataRisk[] = [];
  const oldJoins = new Map(before.map((j) => [JSON.stringify(j), j]));
  const newJoins = new Map(after.map((j) => [JSON.stringify(j), j]));
  for (const [key, joinTable] of oldJoins) {
    if (newJoins.has(key)) continue;
    changes.push({ kind: 'dropJoinTable', joinTable });
    const target = joinTable.foreignKeys[1]!.table;
    risks.push({
      column: joinTable.table,
      risk: `(the join table of a many-to-many to ${target}) is dropped: every row loses its links to ${target}`,
      fix: 'keep the reference, or copy the links elsewhere first',
    });
  }
  for (const [key, joinTable] of newJoins) {
    const added = !oldJoins.has(key);
    if (added) changes.push({ kind: 'addJoinTable', joinTable });
    if (!requiredLinks?.has(joinTable.table)) continue;
    if (!added && requiredLinks.get(joinTable.table) !== true) continue;
    // A many-to-many has no column to be NOT NULL: nothing in the database stops the rows the
    // table holds from linking to nothing, but a request updating one must give at least one.
    const target = joinTable.foreignKeys[1]!.table;
    risks.push({
      column: joinTable.table,
      risk: `(the join table of a required many-to-many to ${target}) is ${added ? 'added' : 'made required'}: the rows the table holds that link to no row of ${target} break the rule, and an update of one must give at least one`,
      fix: added
        ? 'add the many-to-many optional (required: false), link each row, then make it required in a later upgrade'
        : 'link each row first, or keep the many-to-many optional',
    });
  }
  return { changes, risks };
}
