// The DTO's fields from the spec's `dto` include/exclude lists: the stored fields a route answers
// with (never the owner), each named list checked against the stored fields.
import { nameOneOf, type SpecProblem } from './errors.js';
import type { EntitySpec, FieldModel } from './types.js';

export function resolveDto(
  spec: EntitySpec,
  stored: FieldModel[],
  problems: SpecProblem[],
): FieldModel[] {
  const { include, exclude } = spec.dto ?? {};
  const byName = new Map(stored.map((f) => [f.name.camel, f]));
  const check = (list: string[] | undefined, key: string) =>
    (list ?? []).forEach((name, i) => {
      if (byName.has(name)) return;
      problems.push({
        path: `dto.${key}[${i}]`,
        message: `"${name}" is not a stored field`,
        fix: nameOneOf(name, [...byName.keys()]),
      });
    });
  if (include && exclude) {
    problems.push({
      path: 'dto',
      message: 'has both include and exclude',
      fix: 'keep one of them',
    });
    return stored;
  }
  check(include, 'include');
  check(exclude, 'exclude');
  (include ?? []).forEach((name, i) => {
    if (byName.get(name)?.role === 'owner') {
      problems.push({
        path: `dto.include[${i}]`,
        message: 'ownedBy is never in the DTO: a caller only ever sees their own rows',
        fix: 'remove it',
      });
    }
  });
  if (exclude?.includes('id')) {
    problems.push({
      path: 'dto.exclude',
      message: 'id cannot be excluded',
      fix: 'remove id; routes and the list order need it',
    });
  }
  // The owner never leaves the server, so it can be neither read nor filtered, searched or sorted.
  const shown = stored.filter((f) => f.role !== 'owner' && f.name.camel !== 'deletionId');
  if (include) return shown.filter((f) => f.role === 'id' || include.includes(f.name.camel));
  return shown.filter((f) => !exclude?.includes(f.name.camel) || f.role === 'id');
}
