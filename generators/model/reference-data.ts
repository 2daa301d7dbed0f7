// Reference data: the fixed rows a spec declares, checked against the entity's own fields and
// completed with their defaults.
import { didYouMean, nameOneOf, type SpecProblem } from './errors.js';
import { valueProblem } from './fields.js';
import type { EntityModel, FieldModel, ReferenceDataSpec } from './types.js';

/**
 * Reference rows with every own field given: a missing field takes its default (or null when
 * optional); a required field without a default must be set. The key fields are required and
 * identify one row each.
 */
export function resolveReferenceData(
  data: ReferenceDataSpec | undefined,
  scoped: { owned: boolean; tenant: boolean },
  own: FieldModel[],
  problems: SpecProblem[],
): EntityModel['referenceData'] {
  if (!data) return undefined;
  if (scoped.owned || scoped.tenant) {
    const [key, whose] = scoped.owned ? ['owned', 'caller'] : ['tenant', 'tenant'];
    problems.push({
      path: 'referenceData',
      message: `is shared by every caller, but ${scoped.owned ? 'an owned' : 'a tenant'} entity's rows belong to one ${whose} each`,
      fix: `remove ${key}: true, or keep the fixed rows in a table of their own`,
    });
    return undefined;
  }
  const byName = new Map(own.map((f) => [f.name.camel, f]));
  const keyNames = typeof data.key === 'string' ? [data.key] : data.key;
  const key: FieldModel[] = [];
  keyNames.forEach((name, i) => {
    const field = byName.get(name);
    const path = typeof data.key === 'string' ? 'referenceData.key' : `referenceData.key[${i}]`;
    if (!field) {
      problems.push({
        path,
        message: `"${name}" is not a field`,
        fix: nameOneOf(name, [...byName.keys()]),
      });
    } else if (['json', 'text'].includes(field.type)) {
      problems.push({
        path,
        message: `${name} is a ${field.type} field, which cannot be indexed as a key`,
        fix: 'use a string, integer, uuid, date or enum field',
      });
    } else key.push(field);
  });
  const seen = new Set<string>();
  const rows = data.rows.map((row, i) => {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(row)) {
      if (!byName.has(name)) {
        problems.push({
          path: `referenceData.rows[${i}].${name}`,
          message: `"${name}" is not a field`,
          fix: `${didYouMean(name, [...byName.keys()])}use the fields ${[...byName.keys()].join(', ')}`,
        });
      }
    }
    for (const field of own) {
      const name = field.name.camel;
      const isKey = key.includes(field);
      if (!(name in row)) {
        if (isKey || field.sequence || (field.required && !field.hasDefault)) {
          problems.push({
            path: `referenceData.rows[${i}]`,
            message: `has no ${name}`,
            fix: `give ${name} a value${isKey ? ' (it is the key)' : ''}`,
          });
        }
        out[name] = field.hasDefault ? field.default : null;
        continue;
      }
      const why = valueProblem(isKey ? { ...field, required: true } : field, row[name]);
      if (why) {
        problems.push({
          path: `referenceData.rows[${i}].${name}`,
          message: `${JSON.stringify(row[name])} is ${why}`,
          fix: `give a value the ${field.type} field ${name} can hold`,
        });
      }
      out[name] = row[name];
    }
    const identity = JSON.stringify(key.map((f) => out[f.name.camel]));
    if (key.length === keyNames.length && seen.has(identity)) {
      problems.push({
        path: `referenceData.rows[${i}]`,
        message: `repeats the key ${identity}`,
        fix: 'give each row its own key',
      });
    }
    seen.add(identity);
    return out;
  });
  return { key, rows };
}
