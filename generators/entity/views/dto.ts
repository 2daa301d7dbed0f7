// The view of <entity>.dto.ts: the DTO's JSON Schema (an object the template prints as a literal)
// and its interface's properties (templates/entity/partials/property.hbs).
import type { EntityModel } from '../../model/types.js';
import { dtoSchema, jsonType } from '../schemas.js';
import type { SliceBase } from './base.js';
import type { Property } from './requests.js';

export function dtoView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    dtoSchema: dtoSchema(model.dto),
    dtoProperties: model.dto.map((f): Property => ({
      name: f.name.camel,
      type: jsonType(f, !f.notNull),
    })),
    dtoAudited: model.audited && model.dto.some((f) => f.name.camel === 'createdOn'),
  };
}
