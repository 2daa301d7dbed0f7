// The view of <entity>.requests.ts: each request's JSON Schema (an object the template prints as a
// literal; each request type is derived from it).
import type { EntityModel } from '../../model/types.js';
import { requestSchema } from '../schemas.js';
import { eachMethod, type SliceBase } from './base.js';
import { patchSchema } from './patch.js';

export function requestsView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    createSchema: requestSchema(model.create),
    patchSchema: model.patch ? patchSchema(model) : undefined,
    methods: eachMethod(model, base, (m) => ({
      schema: requestSchema(m.params),
    })),
  };
}
