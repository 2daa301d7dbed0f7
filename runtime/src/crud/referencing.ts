// Which tables refer to which, from the tables `defineEntityTable` recorded as referring to others.
import {
  referencingTables as referencing,
  type EntityTable,
  type TableLink,
  type TableReference,
} from './table.js';

/** The references to rows of `parent`: each referring table and its reference field. */
export function referencesTo(
  parent: EntityTable<unknown>,
): { table: EntityTable<unknown>; reference: TableReference }[] {
  return [...referencing].flatMap((table) =>
    table.references
      .filter((reference) => sameTable(reference.to(), parent))
      .map((reference) => ({ table, reference })),
  );
}

/** The many-to-manys whose join rows name rows of `parent`, on either side. */
export function linksTo(parent: EntityTable<unknown>): { link: TableLink; column: string }[] {
  return [...referencing].flatMap((table) =>
    table.links.flatMap((link) => [
      ...(sameTable(table, parent) ? [{ link, column: link.localKey }] : []),
      ...(sameTable(link.to(), parent) ? [{ link, column: link.foreignKey }] : []),
    ]),
  );
}

const sameTable = (a: EntityTable<unknown>, b: EntityTable<unknown>) => a === b;
