// The views of <entity>.routes.ts and <entity>.openapi.ts: the update methods and the actions apart,
// in declaration order, and what an OpenAPI operation states beyond its defaults.
import { methodRules } from '../../model/rules.js';
import type { EntityModel } from '../../model/types.js';
import { eachMethod, type MethodBase, type SliceBase } from './base.js';
import { nestedRoutes } from './nested-routes.js';
import { createGuards } from './rule-guards.js';

function byKind<M extends MethodBase>(methods: M[]) {
  const updateMethods = methods.filter((m) => m.kind === 'update');
  const actionMethods = methods.filter((m) => m.kind === 'action');
  return {
    updateMethods,
    actionMethods,
    hasUpdates: updateMethods.length > 0,
    hasActions: actionMethods.length > 0,
  };
}

export function routesView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    ...byKind(base.methods),
    ...nestedRoutes(model),
    // The list reads through callerRows: the caller's own rows, the live ones.
    listScoped: model.owned || model.tenant || model.softDelete,
    // Listing deleted rows is for the callers restore allows.
    deletedGuard: model.softDelete && base.guarded['restore'] === true,
  };
}

export function openApiView(model: EntityModel, base: SliceBase) {
  const methods = eachMethod(model, base, (m) => ({
    // What the runtime would not derive from the kind and name (openapi/operations.ts).
    statesSegment: m.kind === 'update' ? m.segment !== '' : m.segment !== m.name.kebab,
    statesMethod: m.kind === 'action' && m.verb !== 'POST',
    statesRequestName: m.requestName !== `${m.name.pascal}${model.name.pascal}Request`,
    // The rule codes its guard clauses throw (entity-class.ts): 409 for the row's state, 422 for
    // a declared rule the request breaks.
    rules: [
      ...m.when.map((c) => c.rule),
      ...methodRules(model.rules, m).flatMap((r) => (r.status === 409 ? [r.rule.code] : [])),
    ],
    requestRules: methodRules(model.rules, m).flatMap((r) =>
      r.status === 422 ? [r.rule.code] : [],
    ),
    // The rule of the spec's access, from the table in <entity>.routes.ts.
    accessRef: base.guarded[m.name.pascal] ? `${model.name.camel}Access.${m.name.pascal}` : '',
  }));
  const relations = model.relations;
  const referenced = [...(relations?.references ?? []), ...(relations?.links ?? [])].map(
    (r) => r.target.name.pascal,
  );
  return {
    ...base,
    ...byKind(methods),
    ...nestedRoutes(model),
    createRules: createGuards(model).map((g) => g.code),
    patchRules: base.patch?.ruleGuards.map((g) => g.code) ?? [],
    referencedEntities: [...new Set(referenced)],
    // The unique fields a create or change may repeat (409 crud.duplicate).
    uniqueIndexes: model.fields
      .filter((f) => f.unique)
      .map((f) => ({ fields: [f.name.camel], ...(f.ignoreCase ? { ignoreCase: true } : {}) })),
  };
}
