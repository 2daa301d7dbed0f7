// The indexes a spec asks for its lists (`sortable`, `filterable`), checked: each names a column
// every database can index, and a DTO member a list can order or filter by.
import { fieldKinds } from '@slicekit/runtime/fields';
import { withArticle } from '../names.js';
import type { SpecProblem } from './errors.js';
import type { FieldModel } from './types.js';

/** The problems of the `sortable` / `filterable` keys of the spec's own fields. */
export function listIndexProblems(
  declared: readonly FieldModel[],
  dto: readonly FieldModel[],
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const field of declared) {
    const name = field.reference ? field.reference.name.camel : field.name.camel;
    for (const key of ['sortable', 'filterable'] as const) {
      if (!field[key]) continue;
      const path = `fields.${name}.${key}`;
      const verb = key === 'sortable' ? 'order' : 'filter';
      if (field.reference?.many) {
        problems.push({
          path,
          message: `${name} is a many-to-many, kept in its join table: the entity's table has no column to index`,
          fix: `remove ${key}`,
        });
      } else if (fieldKinds[field.type].indexable === false) {
        problems.push({
          path,
          message: `${withArticle(field.type)} column cannot carry an index on every database, so lists cannot ${verb} by ${name} from one`,
          fix: `use type string with a maxLength, or remove ${key}`,
        });
      } else if (!dto.includes(field)) {
        problems.push({
          path,
          message: `${name} is not in the DTO, so no list can ${verb} by it`,
          fix: `keep ${name} in dto, or remove ${key}`,
        });
      }
    }
  }
  return problems;
}

/** The JSON Schema types the list query searches: plain text (no enum, uuid or date formats). */
export function isSearchedText(field: FieldModel): boolean {
  if (field.reference) return false;
  const schema = fieldKinds[field.type].schema(field, false) as Record<string, unknown>;
  const format = schema['format'];
  return (
    schema['type'] === 'string' &&
    schema['enum'] === undefined &&
    schema['contentEncoding'] === undefined &&
    format !== 'uuid' &&
    format !== 'date' &&
    format !== 'date-time' &&
    format !== 'byte' &&
    format !== 'binary'
  );
}
