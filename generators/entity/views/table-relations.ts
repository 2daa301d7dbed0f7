// What <entity>.table.ts declares of its relations: the table each reference and many-to-many
// refers to (imported from that slice, named lazily so slices load in any order) and onDelete.
import type { RelationTarget } from '../../model/types.js';
import type { EntityModel } from '../../model/types.js';

/** A table constant of another slice (or this one, for a reference to its own entity). */
export interface TableImport {
  name: string;
  path: string;
}

const tableConst = (target: RelationTarget) => `${target.name.camel}Table`;

/** The import of `target`'s table from the slice of `model`, none for its own. */
function tableImport(model: EntityModel, target: RelationTarget): TableImport[] {
  if (target.name.pascal === model.name.pascal) return [];
  return [
    {
      name: tableConst(target),
      path: `../${target.folder}/${target.name.kebab}.table.js`,
    },
  ];
}

export function tableRelations(model: EntityModel) {
  const relations = model.relations;
  const references = (relations?.references ?? []).map((r) => ({
    property: r.field.name.camel,
    table: tableConst(r.target),
    onDelete: r.field.reference!.onDelete,
  }));
  const links = (relations?.links ?? []).map((l) => ({
    property: l.field.name.camel,
    table: tableConst(l.target),
    joinTable: l.joinTable.table,
    localKey: l.joinTable.localKey,
    foreignKey: l.joinTable.foreignKey,
  }));
  const imports = [...(relations?.references ?? []), ...(relations?.links ?? [])]
    .flatMap((r) => tableImport(model, r.target))
    .filter((i, n, all) => all.findIndex((o) => o.name === i.name) === n)
    .sort((a, b) => a.path.localeCompare(b.path));
  return { references, links, tableImports: imports };
}
