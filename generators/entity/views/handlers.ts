// The view of <entity>.handlers.ts: what each handler passes from its request to the entity
// (templates/entity/partials/argument.hbs), and the numbered fields the Create handler fills.
import type { EntityModel, ParamModel } from '../../model/types.js';
import { eachMethod, type SliceBase } from './base.js';

/** A request property passed to the entity: `request.<name>`, made a `Date` for a date-time. */
export interface Argument {
  name: string;
  required: boolean;
  date: boolean;
}

export function argument(p: ParamModel): Argument {
  return { name: p.name.camel, required: p.required, date: p.type === 'date-time' };
}

export function handlersView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    hasCreateParams: model.create.length > 0,
    createArgs: model.create.map(argument),
    methods: eachMethod(model, base, (m) => ({ args: m.params.map(argument) })),
  };
}
