// The spec's `events`: each declaration's fields checked against the entity's own fields.
import { nameOneOf, type SpecProblem } from './errors.js';
import type { EntitySpec, EventModel, FieldModel } from './types.js';

export function resolveEvents(
  spec: EntitySpec,
  stored: FieldModel[],
  problems: SpecProblem[],
): EventModel[] {
  const names = stored.filter((f) => f.role !== 'audit').map((f) => f.name.camel);
  return (spec.events ?? []).map((event, i) => {
    event.fields.forEach((field, j) => {
      if (!names.includes(field)) {
        problems.push({
          path: `events[${i}].fields[${j}]`,
          message: `"${field}" is not a field`,
          fix: nameOneOf(field, names),
        });
      } else if (event.operation === 'Updated' && field === 'id') {
        problems.push({
          path: `events[${i}].fields[${j}]`,
          message: 'an id never changes',
          fix: 'remove id; every event carries it',
        });
      }
    });
    return {
      operation: event.operation,
      fields: event.fields,
      ...(event.name ? { name: event.name } : {}),
    };
  });
}
