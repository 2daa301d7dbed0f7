// The checks of an entity table's keyed members: its unique groups (and which ignore case), its
// references and its links, each against the table's fields.
import type { FieldKind } from '../fields/index.js';

/** The keyed members of a definition, by property name. */
interface TableKeys {
  unique?: readonly (readonly string[])[];
  ignoreCase?: readonly string[];
  references?: Record<string, unknown>;
  links?: Record<string, unknown>;
}

/** What is wrong with `keys` for a table of the fields `all` (empty when nothing is). */
export function keyProblems(keys: TableKeys, all: Record<string, FieldKind>): string[] {
  const problems: string[] = [];
  (keys.unique ?? []).forEach((group, i) => {
    if (group.length === 0) problems.push(`unique[${i}] names no field`);
    for (const field of group) {
      if (!(field in all)) problems.push(`unique[${i}]: "${field}" is not a field`);
    }
  });
  for (const property of keys.ignoreCase ?? []) {
    if (!(keys.unique ?? []).some((g) => g.length === 1 && g[0] === property))
      problems.push(`ignoreCase: "${property}" is not a unique group of its own`);
  }
  for (const property of Object.keys(keys.references ?? {})) {
    if (all[property] !== 'reference')
      problems.push(`references.${property} names no reference field`);
  }
  for (const property of Object.keys(keys.links ?? {})) {
    if (property in all) problems.push(`links.${property} is a stored field; a link has no column`);
  }
  return problems;
}
