// What the generated test checks of each relation: the rows its references name (the seeds of
// those entities, run first), 422 for a reference to no row and for another caller's row of an
// owned entity, nested filter, order and search, the nested route, and what deleting the
// referenced row does (409, cascade, setNull).
import type { EntityModel, FieldModel, ParamModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { nestedRoutes } from './nested-routes.js';

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The id a request of sample row `row` names for reference field `f`: a seeded row's. */
export function referenceSample(model: EntityModel, f: FieldModel, row: number): unknown {
  const target = [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])].find(
    (r) => r.field === f,
  )?.target;
  const ids = target?.name.pascal === model.name.pascal ? [] : (target?.rowIds ?? []);
  const id = ids.length ? ids[row % ids.length] : null;
  if (f.reference?.many) return id ? [id] : [];
  return id;
}

/** The seeds a test runs first: those of the entities the create request names. */
function seededParents(model: EntityModel, create: readonly ParamModel[]) {
  const named = new Set(create.map((p) => p.field).filter((f) => f?.reference));
  const targets = [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])]
    .filter((r) => named.has(r.field) && r.target.name.pascal !== model.name.pascal)
    .map((r) => r.target);
  return targets
    .filter((t, i) => targets.findIndex((o) => o.name.pascal === t.name.pascal) === i)
    .map((t) => ({ fn: `seed${t.plural.pascal}`, folder: t.folder }));
}

export function relationTestsView(
  model: EntityModel,
  base: SliceBase,
  bodyOf: (row: number) => Record<string, unknown>,
) {
  const createNames = new Set(model.create.map((p) => p.name.camel));
  const createBody = bodyOf(0);
  const routes = nestedRoutes(model).nestedRoutes;
  const references = (model.relations?.references ?? [])
    .filter(
      (r) => createNames.has(r.field.name.camel) && r.target.name.pascal !== model.name.pascal,
    )
    .map(({ field, target, show }) => {
      const name = field.name.camel;
      const relation = field.reference!.name.camel;
      const text = show.find((f) => f.type === 'string' || f.type === 'text');
      const route = routes.find((r) => r.foreignKey === `${model.table}.${field.column}`);
      const deleteBody = { ...bodyOf(5), [name]: target.rowIds[4 % target.rowIds.length] };
      return {
        field: name,
        relation,
        target: target.name.pascal,
        targetWords: target.name.words,
        aTarget: `${/^[aeiou]/.test(target.name.words) ? 'an' : 'a'} ${target.name.words}`,
        owned: target.owned,
        // Roles that see every row of the owned target: the caller who cannot see it holds none.
        targetBypass: target.ownerBypass,
        targetTenant: target.tenant,
        // A soft-deleting target: a reference to its deleted row is 422; setNull keeps the id.
        targetSoft: target.softDelete,
        targetTable: target.table,
        parentId: createBody[name],
        unknownBody: { ...createBody, [name]: UNKNOWN_ID },
        orderBy: show[0] ? `${relation}.${show[0].name.camel}` : `${relation}.id`,
        searchField: text?.name.camel,
        nestedPath: route ? `${route.parentPath}/${createBody[name]}/${route.segment}` : undefined,
        unknownNestedPath: route ? `${route.parentPath}/${UNKNOWN_ID}/${route.segment}` : undefined,
        // Deleting a referenced row (one no other test names) and what it does to this one.
        deleteBody,
        parentPath: `/v1/${target.resource}/${String(deleteBody[name])}`,
        deleteNeedsKey: target.deleteNeedsKey,
        restricts: field.reference!.onDelete === 'restrict',
        cascades: field.reference!.onDelete === 'cascade',
      };
    });
  const links = (model.relations?.links ?? [])
    .filter((r) => createNames.has(r.field.name.camel))
    .map(({ field, target }) => ({
      field: field.name.camel,
      relation: field.reference!.name.camel,
      target: target.name.pascal,
      targetWords: target.plural.words,
      owned: target.owned,
      linkedId: (createBody[field.name.camel] as string[])[0],
      unknownBody: { ...createBody, [field.name.camel]: [UNKNOWN_ID] },
    }));
  // A row of another caller (the ownership test) cannot name a seeded row of an owned entity.
  const namesOwned = [...references, ...links].some((r) => r.owned);
  return {
    seededParents: seededParents(model, model.create),
    referenceTests: references,
    linkTests: links,
    hasRelationTests: references.length + links.length > 0,
    // A look-alike tenant cannot name the (seeded) rows of a tenant entity: 422.
    namesTenantRows: [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])]
      .filter((r) => createNames.has(r.field.name.camel))
      .some((r) => r.target.tenant),
    ownershipTest: base.isOwned && !namesOwned,
    usesBearer: (base.isOwned && !namesOwned) || references.some((r) => r.owned),
  };
}
