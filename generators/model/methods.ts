// Effects and methods: the update methods and actions of a spec, checked against the fields they
// set and the parameters they take (params.ts).
import { fieldKinds } from '@slicekit/runtime/fields';
import { kebabCase, nameForms, withArticle } from '../names.js';
import { resolveConditions } from './conditions.js';
import { stepEffect } from './rules.js';
import { didYouMean, nameOneOf } from './errors.js';
import { valueProblem } from './fields.js';
import { resolveParams, type Scope } from './params.js';
import type {
  ActionSpec,
  EffectModel,
  FieldModel,
  MethodModel,
  MethodSpec,
  ParamModel,
} from './types.js';

/** A parameter can set a field of its own kind, or of another kind holding text (string, text). */
const compatible = (param: ParamModel, field: FieldModel): boolean =>
  param.type === field.type ||
  (fieldKinds[param.type].value === 'string' && fieldKinds[field.type].value === 'string');

/**
 * A parameter that sets a field is stored in that field's column, so the column's limits bound it
 * too (a typed `byUser` setting `updatedBy` may hold no more than its 255 characters): otherwise a
 * long value is a database error on PostgreSQL and MySQL and is stored whole on SQLite.
 */
function keepWithinColumn(param: ParamModel, field: FieldModel): void {
  if (field.maxLength !== undefined) {
    param.maxLength = Math.min(param.maxLength ?? Infinity, field.maxLength);
  }
  if (field.minimum !== undefined)
    param.minimum = Math.max(param.minimum ?? -Infinity, field.minimum);
  if (field.maximum !== undefined)
    param.maximum = Math.min(param.maximum ?? Infinity, field.maximum);
  if (field.scale !== undefined) param.scale = Math.min(param.scale ?? Infinity, field.scale);
  if (field.values && !param.values) param.values = field.values;
}

function resolveEffects(
  scope: Scope,
  path: string,
  spec: MethodSpec,
  params: ParamModel[],
): EffectModel[] {
  if (!spec.effects) {
    // No effects written: each parameter named after a field sets that field.
    return params
      .filter((p) => p.field)
      .map((p) => ({ field: p.field!, source: { kind: 'param', param: p } }));
  }
  const effects: EffectModel[] = [];
  spec.effects.forEach((effect, i) => {
    const at = `${path}.effects[${i}]`;
    const verbs = (['set', 'increment', 'decrement'] as const).filter(
      (k) => effect[k] !== undefined,
    );
    if (verbs.length !== 1) {
      scope.problems.push({
        path: at,
        message: verbs.length ? `has ${verbs.join(' and ')}` : 'names no field',
        fix: 'give exactly one of set: <field>, increment: <field> or decrement: <field>',
      });
      return;
    }
    const verb = verbs[0]!;
    const target = effect[verb]!;
    const field = scope.settable.get(target);
    if (!field) {
      scope.problems.push({
        path: `${at}.${verb}`,
        message: `"${target}" is not a field an effect can ${verb === 'set' ? 'set' : 'step'}`,
        fix: nameOneOf(target, [...scope.settable.keys()]),
      });
      return;
    }
    if (verb !== 'set') {
      const step = stepEffect(scope, at, verb, field, effect);
      if (step) effects.push(step);
      return;
    }
    if (effect.by !== undefined) {
      scope.problems.push({
        path: `${at}.by`,
        message: 'by steps an increment or a decrement',
        fix: `write { increment: ${target}, by: ${effect.by} }, or remove by`,
      });
      return;
    }
    const given = (['value', 'from', 'now'] as const).filter((k) => effect[k] !== undefined);
    if (given.length !== 1) {
      scope.problems.push({
        path: at,
        message: given.length ? `has ${given.join(' and ')}` : 'says nothing about the new value',
        fix: 'give exactly one of value, from or now: true',
      });
      return;
    }
    if (effect.from !== undefined) {
      const param = params.find((p) => p.name.camel === effect.from);
      if (!param) {
        scope.problems.push({
          path: `${at}.from`,
          message: `"${effect.from}" is not a parameter of ${spec.name}`,
          fix: params.length
            ? nameOneOf(
                effect.from,
                params.map((p) => p.name.camel),
              )
            : `add ${effect.from} to parameters`,
        });
        return;
      }
      if (!compatible(param, field)) {
        scope.problems.push({
          path: `${at}.from`,
          message: `parameter ${param.name.camel} is ${param.type} but ${field.name.camel} is ${field.type}`,
          fix: 'give the parameter the field type',
        });
        return;
      }
      keepWithinColumn(param, field);
      effects.push({ field, source: { kind: 'param', param } });
    } else if (effect.now) {
      if (field.type !== 'date-time' && field.type !== 'date') {
        scope.problems.push({
          path: `${at}.now`,
          message: `${field.name.camel} is ${field.type}, not a date or date-time`,
          fix: 'use value or from for this field',
        });
        return;
      }
      effects.push({ field, source: { kind: 'now' } });
    } else {
      const why = valueProblem(field, effect.value);
      if (why) {
        scope.problems.push({
          path: `${at}.value`,
          message: `${JSON.stringify(effect.value)} is ${why}`,
          fix:
            field.type === 'enum' && typeof effect.value === 'string'
              ? `${didYouMean(effect.value, field.values ?? [])}give one of its values`
              : `give a value ${withArticle(field.type)} field can hold`,
        });
        return;
      }
      effects.push({ field, source: { kind: 'value', value: effect.value } });
    }
  });
  return effects;
}

/** Update methods and actions, with their routes. */
export function resolveMethods(
  scope: Scope,
  updates: readonly MethodSpec[],
  actions: readonly ActionSpec[],
): MethodModel[] {
  const methods: MethodModel[] = [];
  const all = [
    ...updates.map((spec, i) => ({
      spec: spec as ActionSpec,
      path: `updates[${i}]`,
      kind: 'update' as const,
      index: i,
    })),
    ...actions.map((spec, i) => ({
      spec,
      path: `actions[${i}]`,
      kind: 'action' as const,
      index: i,
    })),
  ];
  const taken = new Map<string, string>();
  const routes = new Map<string, string>();
  const requests = new Map<string, string>([[`Create${scope.entity}Request`, 'create']]);
  for (const { spec, path, kind, index } of all) {
    const name = nameForms(spec.name);
    if (['Create', 'Delete', 'GetById', 'GetList'].includes(name.pascal)) {
      scope.problems.push({
        path: `${path}.name`,
        message: `${name.pascal} is the name of a generated route`,
        fix: 'choose another name',
      });
      continue;
    }
    if (
      scope.fields.has(name.camel) ||
      ['id', 'ownedBy', 'tenantId', 'createdBy', 'createdOn', 'updatedBy', 'updatedOn'].includes(
        name.camel,
      )
    ) {
      scope.problems.push({
        path: `${path}.name`,
        message: `method ${name.camel}() would clash with the property ${name.camel}`,
        fix: 'choose a verb, e.g. Change' + name.pascal,
      });
      continue;
    }
    const other = taken.get(name.camel.toLowerCase());
    if (other) {
      scope.problems.push({
        path: `${path}.name`,
        message: `${name.pascal} is also ${other}`,
        fix: 'give each method its own name',
      });
      continue;
    }
    taken.set(name.camel.toLowerCase(), path);
    const params = resolveParams(scope, `${path}.parameters`, spec.parameters ?? [], true);
    const effects = resolveEffects(scope, path, spec, params);
    const when = resolveConditions(scope, path, name.pascal, spec.when);
    for (const param of params) {
      if (
        !effects.some((e) => e.source.kind === 'param' && e.source.param === param) &&
        spec.effects
      ) {
        scope.problems.push({
          path: `${path}.parameters`,
          message: `${param.name.camel} is never used`,
          fix: `add an effect { set: <field>, from: ${param.name.camel} }, or remove it`,
        });
      } else if (!param.field && !spec.effects) {
        scope.problems.push({
          path: `${path}.parameters`,
          message: `${param.name.camel} is not a field, so it sets nothing`,
          fix: `add effects, e.g. { set: <field>, from: ${param.name.camel} }`,
        });
      }
    }
    const verb = kind === 'update' ? 'PUT' : (spec.verb ?? 'POST');
    const segment =
      kind === 'update' ? (index === 0 ? '' : name.kebab) : (spec.segment ?? kebabCase(spec.name));
    const route = `${verb} /{id}${segment ? `/${segment}` : ''}`;
    const clash = routes.get(route);
    if (clash) {
      scope.problems.push({
        path: kind === 'action' ? `${path}.segment` : `${path}.name`,
        message: `${route} is also ${clash}'s route`,
        fix: 'give the action another segment or verb',
      });
      continue;
    }
    routes.set(route, path);
    const requestName =
      (kind === 'action' ? spec.requestName : undefined) ?? `${name.pascal}${scope.entity}Request`;
    const requestClash = requests.get(requestName);
    if (requestClash) {
      scope.problems.push({
        path: `${path}.requestName`,
        message: `${requestName} is also ${requestClash}'s request`,
        fix: 'choose another requestName',
      });
      continue;
    }
    requests.set(requestName, path);
    methods.push({
      kind,
      name,
      params,
      effects,
      when,
      verb,
      segment,
      requestName,
      ...(spec.description ? { description: spec.description } : {}),
    });
  }
  return methods;
}
