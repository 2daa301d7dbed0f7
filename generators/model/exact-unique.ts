// Where a unique field compares exactly whatever its spec's default: under soft delete and in a
// tenant entity (the runtime's live and tenant-led unique indexes compare exactly).
import type { SpecProblem } from './errors.js';
import { fieldModel } from './fields.js';
import { isSearchedText } from './indexes.js';
import type { EntitySpec, FieldModel, FieldSpec } from './types.js';
import { withArticle } from '../names.js';

/** `unique: { ignoreCase }` on a field that holds no text whose case could differ. */
export function ignoreCaseWithoutText(path: string, name: string, field: FieldSpec): SpecProblem[] {
  if (typeof field.unique !== 'object' || !field.unique.ignoreCase) return [];
  if (isSearchedText(fieldModel(name, field))) return [];
  return [
    {
      path: `${path}.unique.ignoreCase`,
      message: `${withArticle(field.type)} field holds no text whose case could differ`,
      fix: 'use unique: true',
    },
  ];
}

/**
 * Under soft delete a unique value is unique among live rows, and in a tenant entity within its
 * tenant, both compared exactly: an email's ignoreCase default gives way (removed from
 * `declared`), an explicit ignoreCase is refused.
 */
export function exactUnique(spec: EntitySpec, declared: FieldModel[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const key = spec.softDelete ? 'softDelete' : spec.tenant ? 'tenant' : undefined;
  if (!key) return problems;
  const scope = key === 'softDelete' ? "a live row's" : "a tenant's";
  for (const f of declared.filter((f) => f.ignoreCase)) {
    if (typeof spec.fields[f.name.camel]?.unique === 'object') {
      problems.push({
        path: `fields.${f.name.camel}.unique.ignoreCase`,
        message: `is not combined with ${key}: ${scope} unique value compares exactly`,
        fix: `use unique: true, or leave ${key} out`,
      });
    }
    delete f.ignoreCase;
  }
  return problems;
}
