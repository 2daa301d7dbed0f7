// The view of <entity>.dto.ts: the DTO's JSON Schema (an object the template prints as a literal;
// the DTO type is derived from it).
import type { EntityModel } from '../../model/types.js';
import { dtoSchema } from '../schemas.js';
import type { SliceBase } from './base.js';

export function dtoView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    dtoSchema: dtoSchema(model.dto),
    dtoAudited: model.audited && model.dto.some((f) => f.name.camel === 'createdOn'),
  };
}
