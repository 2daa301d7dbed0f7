// The view of <entity>.dto.ts: the DTO's JSON Schema (an object the template prints as a literal;
// the DTO type is derived from it). A slice with relations spreads the members of its
// <entity>.relations.ts between its own fields and the audit fields.
import type { EntityModel } from '../../model/types.js';
import { dtoSchema } from '../schemas.js';
import type { SliceBase } from './base.js';

export function dtoView(model: EntityModel, base: SliceBase) {
  const schema = dtoSchema(model.dto);
  const properties = schema.properties as Record<string, unknown>;
  const own = model.dto.filter((f) => f.role !== 'audit').map((f) => f.name.camel);
  const audit = model.dto.filter((f) => f.role === 'audit').map((f) => f.name.camel);
  const entries = (names: string[]) => names.map((name) => ({ name, schema: properties[name] }));
  return {
    ...base,
    dtoSchema: schema,
    ownProperties: entries(own),
    auditProperties: entries(audit),
    dtoRequired: [...own, ...audit],
    dtoAudited: model.audited && model.dto.some((f) => f.name.camel === 'createdOn'),
  };
}
