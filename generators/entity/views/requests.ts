// The view of <entity>.requests.ts: each request's JSON Schema (an object the template prints as a
// literal) and its interface's properties (templates/entity/partials/property.hbs).
import type { EntityModel, ParamModel } from '../../model/types.js';
import { jsonType, requestSchema } from '../schemas.js';
import { eachMethod, type SliceBase } from './base.js';

/** `<name>?: <type>;` */
export interface Property {
  name: string;
  type: string;
  optional?: boolean;
}

function requestProperty(p: ParamModel): Property {
  return { name: p.name.camel, type: jsonType(p, !p.required), optional: !p.required };
}

export function requestsView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    createSchema: requestSchema(model.create),
    createProperties: model.create.map(requestProperty),
    hasCreateParams: model.create.length > 0,
    methods: eachMethod(model, base, (m) => ({
      schema: requestSchema(m.params),
      properties: m.params.map(requestProperty),
    })),
  };
}
