// Which tables refer to which: every table defined with references or links, so deleting a row
// finds the rows referring to it without the referenced slice knowing the slices built after it.
import type { EntityTable, TableLink, TableReference } from './table.js';

const referencing = new Set<EntityTable<unknown>>();

/** Records a table whose rows refer to others (`defineEntityTable` calls it). */
export function recordReferences(table: EntityTable<unknown>): void {
  if (table.references.length > 0 || table.links.length > 0) referencing.add(table);
}

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
