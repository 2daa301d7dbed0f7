// PATCH /{id} (the spec's `patch: true`): which fields a merge patch may set, its request schema
// (the create rules, nothing required, null where the column takes it), and what the templates need.
import type { EntityModel, ParamModel } from '../../model/types.js';
import { isMany, requestSchema } from '../schemas.js';
import { createGuards, type RuleGuard } from './rule-guards.js';

/**
 * The fields a patch may set: each create parameter naming a field, other than a many-to-many
 * (sent whole, never merged). A field the column requires keeps create's rules and refuses null.
 */
export function patchParams(model: EntityModel): ParamModel[] {
  return model.create
    .filter((p) => p.field !== undefined && !isMany(p))
    .map((p) => ({ ...p, required: p.required || p.field?.notNull === true }));
}

/** The patch request: each patchable field with create's rules, none required (RFC 7396). */
export function patchSchema(model: EntityModel): Record<string, unknown> {
  const { required: _required, ...schema } = requestSchema(patchParams(model));
  return schema;
}

/** One field a patch may set, as the entity's `patch` method assigns it. */
export interface PatchField {
  name: string;
  date: boolean;
  nullable: boolean;
}

export interface PatchView {
  requestName: string;
  schemaName: string;
  fields: PatchField[];
  /** The declared rules, checked after the fields are set, as after a create (422). */
  ruleGuards: RuleGuard[];
}

/** The patch of a slice, or undefined when its spec does not ask for one. */
export function patchView(model: EntityModel): PatchView | undefined {
  if (!model.patch) return undefined;
  const requestName = `Patch${model.name.pascal}Request`;
  return {
    requestName,
    schemaName: `patch${model.name.pascal}RequestSchema`,
    fields: patchParams(model).map((p) => ({
      name: p.name.camel,
      date: p.type === 'date-time',
      nullable: !p.required,
    })),
    ruleGuards: createGuards(model),
  };
}
