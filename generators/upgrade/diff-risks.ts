// The data a table change may lose or refuse (diff.ts): a column altered into a narrower type, a
// required column added or made required without a value for the rows the table holds.
import type { Column } from '../entity/views/migration.js';
import type { DataRisk } from './changes.js';

/** Widening a column's type never loses a value. */
const WIDENINGS = new Set(['string>text']);

/** `decimal(p, s)` digits before and after the point. */
function digits(column: Column): { whole: number; scale: number } {
  const [precision = 12, scale = 2] = column.args as number[];
  return { whole: precision - scale, scale };
}

/** Why changing `before` into `after` may lose or refuse data, if it may. */
export function alterRisks(
  before: Column,
  after: Column,
  fills: ReadonlyMap<string, unknown>,
  reference: boolean,
): DataRisk[] {
  const risks: DataRisk[] = [];
  const at = (risk: string, fix: string) => risks.push({ column: after.name, risk, fix });
  if (before.method !== after.method) {
    if (!WIDENINGS.has(`${before.method}>${after.method}`)) {
      at(
        `its type changes from ${before.method} to ${after.method}: values that do not convert make the migration fail or are cut`,
        'keep the type, or add a new field and copy the values in a migration of your own',
      );
    }
  } else if (after.method === 'string') {
    const [was, is] = [before.args[0] as number, after.args[0] as number];
    if (is < was) {
      at(
        `maxLength narrows from ${was} to ${is}: longer values are cut to ${is} characters`,
        `keep maxLength at ${was} or more`,
      );
    }
  } else if (after.method === 'decimal') {
    const [was, is] = [digits(before), digits(after)];
    if (is.whole < was.whole || is.scale < was.scale) {
      at(
        `decimal(${before.args.join(', ')}) narrows to decimal(${after.args.join(', ')}): values outside it are rounded or make the migration fail`,
        'keep the precision and scale, or widen them',
      );
    }
  } else if (after.method === 'enu') {
    const kept = new Set(after.args[0] as string[]);
    const removed = (before.args[0] as string[]).filter((v) => !kept.has(v));
    if (removed.length) {
      const to = after.hasDefault ? JSON.stringify(after.defaultTo) : 'null';
      at(
        `values ${removed.map((v) => JSON.stringify(v)).join(', ')} are removed: rows holding them are set to ${to}`,
        'keep the values, or move the rows to another value first',
      );
    }
  }
  if (after.notNullable && !before.notNullable && !after.hasDefault && !fills.has(after.name)) {
    if (reference) {
      at(
        'becomes a required reference: rows referring to no row make the migration fail',
        'give each row its reference first, then accept',
      );
    } else {
      at(
        'becomes required without a default: rows without a value make the migration fail',
        'give the field a default (existing rows without a value take it), or fill them first',
      );
    }
  }
  return risks;
}

/** Why a required column added without a value for the rows a table holds is at risk. */
export const ADDED_EMPTY = {
  tenant: {
    risk: 'is added as the tenant of every row: the rows the table holds belong to no tenant, so the migration fails unless the table is empty',
    fix: 'give the tenant they belong to: --default-tenant <id> (every existing row takes it)',
  },
  reference: {
    risk: 'is added as a required reference: the rows the table holds refer to no row, so the migration fails unless the table is empty',
    fix: 'add the reference optional (required: false), give each row its reference, then make it required in a later upgrade',
  },
  field: {
    risk: 'is added as required without a default: the rows the table holds have no value for it',
    fix: 'give the field a default (existing rows take it), or make it optional',
  },
};
export const addedKind = (column: Column, references: ReadonlySet<string>) =>
  column.exact ? 'tenant' : references.has(column.name) ? 'reference' : 'field';
