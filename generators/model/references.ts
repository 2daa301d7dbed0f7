// Reference fields of one spec: `customer: { type: reference, entity: Customer }` becomes the
// stored field `customerId` (column `customer_id`), and `tags: { type: reference, many: true }`
// the id list `tagIds` kept in a join table. What they refer to is checked against the other
// entities of the app in relations.ts; here only what one spec can tell.
import pluralizeWord from 'pluralize';
import { nameForms, snakeCase, withArticle } from '../names.js';
import type { SpecProblem } from './errors.js';
import type { FieldModel, FieldSpec } from './types.js';

/** The keys only a reference field takes. */
const RELATION_KEYS = ['entity', 'onDelete', 'many', 'show', 'inverse', 'joinTable'] as const;

/** The id property of a reference named `name`: `customerId`, `tagIds` for a many-to-many. */
export function idPropertyOf(name: string, many: boolean): string {
  return many ? `${pluralizeWord.singular(name)}Ids` : `${name}Id`;
}

/** Problems of the relation keys of field `name`; none for a field of another kind without them. */
export function referenceProblems(path: string, name: string, spec: FieldSpec): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const add = (key: string, message: string, fix: string) =>
    problems.push({ path: key ? `${path}.${key}` : path, message, fix });
  if (spec.type !== 'reference') {
    for (const key of RELATION_KEYS) {
      if (spec[key] !== undefined) {
        add(
          key,
          `does not apply to ${withArticle(spec.type)}`,
          'remove it, or make the type reference',
        );
      }
    }
    return problems;
  }
  if (spec.entity === undefined) {
    add(
      'entity',
      'is missing for a reference',
      'name the referenced entity, e.g. entity: Customer',
    );
  }
  if (/Ids?$/.test(name)) {
    const base = name.replace(/Ids?$/, '');
    add(
      '',
      `names the id, not the relation`,
      `call it ${spec.many ? pluralizeWord.plural(base) : base}; the entity then holds ${idPropertyOf(base, spec.many === true)}`,
    );
  }
  if (spec.default !== undefined) {
    add('default', 'a reference has no default', 'remove it; a request names the row');
  }
  if (spec.many) {
    if (spec.onDelete !== undefined) {
      add(
        'onDelete',
        'does not apply to a many-to-many: its join rows go with either row',
        'remove it',
      );
    }
    if (spec.inverse !== undefined) {
      add('inverse', 'does not apply to a many-to-many', 'remove it');
    }
    if (spec.unique) add('unique', 'does not apply to a many-to-many', 'remove it');
  } else if (spec.joinTable !== undefined) {
    add('joinTable', 'applies to a many-to-many only', 'remove it, or add many: true');
  }
  if (typeof spec.unique === 'object' && spec.unique.ignoreCase) {
    add(
      'unique',
      'holds an id, whose case does not vary: ignoreCase does not apply',
      'use unique: true',
    );
  }
  if (spec.onDelete === 'setNull' && spec.required) {
    add(
      'onDelete',
      'setNull on a required reference: the column cannot hold null',
      'use restrict or cascade, or make the reference optional (required: false)',
    );
  }
  return problems;
}

/**
 * The field a reference stores (`customerId`), or for a many-to-many the id list it keeps in
 * its join table (`tagIds`). `entity` and `table` are the referencing entity's name and table.
 */
export function referenceField(
  name: string,
  spec: FieldSpec,
  entity: { pascal: string; plural: string; table: string },
): FieldModel {
  const many = spec.many === true;
  const id = idPropertyOf(name, many);
  const required = spec.required ?? false;
  const own = snakeCase(entity.pascal);
  return {
    name: nameForms(id),
    column: snakeCase(id),
    type: 'reference',
    role: 'field',
    required,
    // An id list is never null: empty at most.
    notNull: required || many,
    hasDefault: false,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.unique ? { unique: true } : {}),
    ...(spec.sortable ? { sortable: true } : {}),
    ...(spec.filterable ? { filterable: true } : {}),
    reference: {
      name: nameForms(name),
      entity: spec.entity ?? '',
      many,
      onDelete: spec.onDelete ?? 'restrict',
      ...(spec.show ? { show: spec.show } : {}),
      inverse: nameForms(spec.inverse ?? entity.plural),
      ...(many
        ? {
            joinTable: {
              table: spec.joinTable ?? `${own}_${snakeCase(name)}`,
              localKey: `${own}_id`,
              foreignKey: `${snakeCase(pluralizeWord.singular(name))}_id`,
            },
          }
        : {}),
    },
  };
}
