// The view of <entity>.entity.ts: the class's properties, its constructor and its methods, each
// statement an assignment `{ property, value }` (templates/entity/partials/assignment.hbs).
import type {
  ConditionModel,
  EffectModel,
  EntityModel,
  FieldModel,
  MethodModel,
  ParamModel,
} from '../../model/types.js';
import { entityType } from '../schemas.js';
import { eachMethod, type SliceBase } from './base.js';
import { createGuards, methodGuards } from './rule-guards.js';
import { entityValue, type EntityValue } from './values.js';

/** A typed parameter (templates/entity/partials/parameters.hbs). */
export interface Parameter {
  name: string;
  type: string;
}

/** `this.<property> = <value>;` */
export interface Assignment {
  property: string;
  value: EntityValue;
  /** Sets updatedBy, which the save then keeps instead of stamping the caller. */
  recordsUpdater?: boolean;
}

function parameter(p: ParamModel): Parameter {
  return { name: p.name.camel, type: entityType(p, !p.required) };
}

/** The value a new entity starts with when no parameter sets it. */
function initialValue(field: FieldModel): EntityValue {
  if (field.role === 'id') return { uuid: true };
  if (field.reference?.many) return { value: [] };
  // Numbered by the Create handler from its sequence, right after construction.
  if (field.sequence) return { value: field.type === 'integer' ? 0 : '' };
  if (field.hasDefault) return entityValue(field, field.default);
  return { value: null };
}

/** The owner, tenant and audit fields: `insertEntity` stamps them, so the constructor leaves them be. */
const stamped = (f: FieldModel): boolean =>
  f.role === 'owner' || f.role === 'tenant' || f.role === 'audit';

/** A parameter's value; a missing one leaves a not-null field at `fallback`. */
function fromParam(field: FieldModel, p: ParamModel, fallback: EntityValue): EntityValue {
  return !p.required && field.notNull ? { param: p.name.camel, fallback } : { param: p.name.camel };
}

function effectValue(effect: EffectModel): EntityValue {
  const f = effect.field;
  switch (effect.source.kind) {
    case 'param':
      return fromParam(f, effect.source.param, { current: f.name.camel });
    case 'value':
      return entityValue(f, effect.source.value);
    case 'now':
      return f.type === 'date' ? { today: true } : { now: true };
    case 'step':
      return { step: f.name.camel, by: effect.source.by, orZero: !f.notNull };
  }
}

function propertyDoc(model: EntityModel, f: FieldModel): string | undefined {
  if (f.description) return f.description;
  if (f.role === 'owner') return 'The creator, stamped on insert: the row belongs to them.';
  if (f.role === 'tenant') return "The caller's tenant, stamped on insert: the row belongs to it.";
  if (f.sequence)
    return `Numbered on create from the ${f.sequence.name} sequence (${model.name.kebab}.sequences.ts).`;
  return undefined;
}

/** `value` as a TypeScript literal: `'draft'`, `true`. */
const literal = (value: string | boolean): string =>
  typeof value === 'boolean' ? String(value) : `'${value.replace(/[\\']/g, '\\$&')}'`;

/** `text` safe inside a template literal. */
const templateText = (text: string): string => text.replace(/[\\`]|\$\{/g, (m) => `\\${m}`);

/**
 * The guard clause of a precondition: the test that it does not hold, the rule's code and the
 * message, `Place needs status draft; it is placed` (templates/entity/partials/guard.hbs).
 */
function guard(method: MethodModel, condition: ConditionModel) {
  const property = condition.field.name.camel;
  const values = condition.values;
  return {
    property,
    test:
      values.length === 1
        ? `this.${property} !== ${literal(values[0]!)}`
        : `![${values.map(literal).join(', ')}].includes(this.${property})`,
    rule: condition.rule,
    needs: templateText(
      `${method.name.pascal} needs ${property} ${values.map(String).join(' or ')}`,
    ),
  };
}

export function entityClassView(model: EntityModel, base: SliceBase) {
  const createParams = new Map(model.create.map((p) => [p.field!.name.camel, p]));
  // Many-to-manys (id lists kept in join tables) follow the entity's own stored fields.
  const own = model.fields.filter((f) => f.role === 'id' || f.role === 'field');
  const members = [...own, ...model.links, ...model.fields.filter((f) => !own.includes(f))];
  return {
    ...base,
    description: model.description,
    properties: members.map((f) => ({
      camel: f.name.camel,
      type: entityType(f, !f.notNull),
      doc: propertyDoc(model, f),
      firstAudit: f.name.camel === 'createdBy',
      stamped: stamped(f),
    })),
    parameters: model.create.map(parameter),
    assignments: members
      .filter((f) => !stamped(f))
      .map((f): Assignment => {
        const p = createParams.get(f.name.camel);
        const initial = initialValue(f);
        return { property: f.name.camel, value: p ? fromParam(f, p, initial) : initial };
      }),
    hasGuards: model.methods.some((m) => m.when.length > 0) || model.rules.length > 0,
    ruleGuards: createGuards(model),
    methods: eachMethod(model, base, (m) => ({
      guards: m.when.map((c) => guard(m, c)),
      ruleGuards: methodGuards(model, m),
      parameters: m.params.map(parameter),
      assignments: m.effects.map((e): Assignment => ({
        property: e.field.name.camel,
        value: effectValue(e),
        recordsUpdater: e.field.name.camel === 'updatedBy',
      })),
    })),
  };
}
