// Spec -> model: checks the structure with ajv, then the meaning (references between keys), and
// resolves every default and name form once. Throws EntitySpecError listing every problem.
import { kebabCase, nameForms, pluralize, snakeCase } from '../names.js';
import { EntitySpecError, type SpecProblem } from './errors.js';
import {
  auditFields,
  constraintProblems,
  DEFAULT_STRING_LENGTH,
  fieldModel,
  idField,
  ownerField,
  RESERVED,
  valueProblem,
} from './fields.js';
import { resolveMethods, resolveParams, type Scope } from './methods.js';
import { structuralProblems } from './structure.js';
import type {
  EntityModel,
  EntitySpec,
  EventModel,
  FieldModel,
  FieldSpec,
  ReferenceDataSpec,
} from './types.js';

const SEQUENCE_LIMITS = { int: 2_147_483_647, bigint: Number.MAX_SAFE_INTEGER } as const;

/** The longest text `format` renders for numbers up to `max`: what the column must hold. */
function longestFormatted(format: string, max: number): number {
  const digits = String(max).length;
  let length = 0;
  for (const piece of format.match(/\{\{|\}\}|\{[^{}]*\}|[^{}]/g) ?? []) {
    const number = /^\{1(?::(0+))?\}$/.exec(piece);
    if (number) length += Math.max(digits, number[1]?.length ?? 0);
    else if (piece.startsWith('{DateTime:')) length += piece.length - '{DateTime:}'.length;
    else length += 1;
  }
  return length;
}

/** Checks a field's `sequence` and resolves its defaults (the name once the table is known). */
function resolveSequence(
  path: string,
  field: FieldSpec,
  problems: SpecProblem[],
): FieldModel['sequence'] {
  const sequence = field.sequence;
  if (!sequence) return undefined;
  const at = `${path}.sequence`;
  if (field.type !== 'string' && field.type !== 'integer') {
    problems.push({
      path: at,
      message: `a ${field.type} field cannot be numbered by a sequence`,
      fix: 'use it on a string field (formatted) or an integer field',
    });
    return undefined;
  }
  if (field.default !== undefined) {
    problems.push({
      path: `${path}.default`,
      message: 'a field numbered by a sequence takes no default',
      fix: 'remove the default',
    });
  }
  if (sequence.format !== undefined) {
    const numbers = sequence.format.replace(/\{\{|\}\}/g, '').match(/\{1(:0+)?\}/g) ?? [];
    if (field.type === 'integer') {
      problems.push({
        path: `${at}.format`,
        message: 'an integer field holds the plain number',
        fix: 'remove format, or make the field a string',
      });
    } else if (numbers.length !== 1) {
      problems.push({
        path: `${at}.format`,
        message: `"${sequence.format}" must show the number exactly once`,
        fix: "write it as {1} or {1:00000}, e.g. 'T{DateTime:yyMMdd}{1:00000}'",
      });
    }
  }
  const valueType = sequence.valueType ?? (field.type === 'integer' ? 'int' : 'bigint');
  const limit = SEQUENCE_LIMITS[valueType];
  if (field.type === 'integer' && valueType === 'bigint') {
    problems.push({
      path: `${at}.valueType`,
      message: 'an integer field is a 32-bit column',
      fix: 'use valueType: int, or a string field for larger numbers',
    });
  }
  const longest =
    field.type === 'string' ? longestFormatted(sequence.format ?? '{1}', sequence.max ?? limit) : 0;
  const room = field.maxLength ?? DEFAULT_STRING_LENGTH;
  if (longest > room) {
    problems.push({
      path: `${at}.max`,
      message: `values up to ${sequence.max ?? limit} render ${longest} characters, more than maxLength ${room}`,
      fix: `give a lower max, or maxLength: ${longest}`,
    });
  }
  if (sequence.max !== undefined && sequence.max > limit) {
    problems.push({
      path: `${at}.max`,
      message: `${sequence.max} does not fit valueType ${valueType}`,
      fix: `give at most ${limit}${valueType === 'int' ? ', or valueType: bigint' : ''}`,
    });
  }
  if (sequence.max !== undefined && sequence.max < (sequence.start ?? 1)) {
    problems.push({
      path: `${at}.max`,
      message: 'is below start',
      fix: 'give a max of at least start',
    });
  }
  return {
    name: sequence.name ?? '',
    format: sequence.format ?? '{1}',
    valueType,
    ...(sequence.start !== undefined ? { start: sequence.start } : {}),
    ...(sequence.max !== undefined ? { max: sequence.max } : {}),
  };
}

function resolveFields(spec: EntitySpec, problems: SpecProblem[]): FieldModel[] {
  const fields: FieldModel[] = [];
  for (const [name, field] of Object.entries(spec.fields)) {
    const path = `fields.${name}`;
    const reserved = RESERVED[name];
    if (reserved) {
      problems.push({ path, message: `${name} is reserved`, fix: reserved });
      continue;
    }
    problems.push(...constraintProblems(path, field.type, field));
    const sequence = resolveSequence(path, field, problems);
    const model = sequence
      ? { ...fieldModel(name, field), notNull: true, sequence }
      : fieldModel(name, field);
    if (model.hasDefault) {
      const why = valueProblem({ ...model, required: false }, field.default);
      if (why)
        problems.push({
          path: `${path}.default`,
          message: `${JSON.stringify(field.default)} is ${why}`,
          fix: `give a default a ${field.type} field can hold`,
        });
    }
    fields.push(model);
  }
  return fields;
}

function resolveDto(spec: EntitySpec, stored: FieldModel[], problems: SpecProblem[]): FieldModel[] {
  const { include, exclude } = spec.dto ?? {};
  const byName = new Map(stored.map((f) => [f.name.camel, f]));
  const check = (list: string[] | undefined, key: string) =>
    (list ?? []).forEach((name, i) => {
      if (byName.has(name)) return;
      const computed = name === 'lastModifiedBy' || name === 'lastModifiedOn';
      problems.push({
        path: `dto.${key}[${i}]`,
        message: computed
          ? `${name} is computed and never in the DTO`
          : `"${name}" is not a stored field`,
        fix: computed ? 'remove it' : `name one of ${[...byName.keys()].join(', ')}`,
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
  const shown = stored.filter((f) => f.role !== 'owner');
  if (include) return shown.filter((f) => f.role === 'id' || include.includes(f.name.camel));
  return shown.filter((f) => !exclude?.includes(f.name.camel) || f.role === 'id');
}

function resolveEvents(
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
          fix: `name one of ${names.join(', ')}`,
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

/**
 * Reference rows with every own field given: a missing field takes its default (or null when
 * optional); a required field without a default must be set. The key fields are required and
 * identify one row each.
 */
function resolveReferenceData(
  data: ReferenceDataSpec | undefined,
  owned: boolean,
  own: FieldModel[],
  problems: SpecProblem[],
): EntityModel['referenceData'] {
  if (!data) return undefined;
  if (owned) {
    problems.push({
      path: 'referenceData',
      message: "is shared by every caller, but an owned entity's rows belong to one caller each",
      fix: 'remove owned: true, or keep the fixed rows in a table of their own',
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
        fix: `name one of ${[...byName.keys()].join(', ')}`,
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
          fix: `use the fields ${[...byName.keys()].join(', ')}`,
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

/**
 * Checks and resolves a spec. `source` names it in the error (a file path, or `the prompts`).
 *
 * @example
 * const model = resolveSpec(YAML.parse(text), 'docs/examples/product.yaml');
 */
export function resolveSpec(input: unknown, source: string): EntityModel {
  const structural = structuralProblems(input);
  if (structural.length > 0) throw new EntitySpecError(source, structural);
  const spec = input as EntitySpec;
  const problems: SpecProblem[] = [];
  const entity = nameForms(spec.entity);
  const plural = nameForms(spec.plural ?? pluralize(spec.entity));
  if (plural.pascal === entity.pascal) {
    problems.push({
      path: 'plural',
      message: `is the same as the entity name ${entity.pascal}`,
      fix: 'give a distinct plural, e.g. plural: SheepItems',
    });
  }
  const audited = spec.audited ?? true;
  const owned = spec.owned ?? false;
  const own = resolveFields(spec, problems);
  const stored = [
    idField(),
    ...own,
    ...(owned ? [ownerField()] : []),
    ...(audited ? auditFields() : []),
  ];
  const fields = new Map(own.map((f) => [f.name.camel, f]));
  const settable = new Map(fields);
  if (audited)
    settable.set(
      'updatedBy',
      stored.find((f) => f.name.camel === 'updatedBy')!,
    );
  const scope: Scope = { entity: entity.pascal, fields, settable, problems };

  const create = resolveParams(
    scope,
    'create',
    spec.create ?? own.filter((f) => !f.hasDefault && !f.sequence).map((f) => f.name.camel),
    false,
  );
  for (const field of own) {
    if (field.sequence) continue;
    if (field.required && !field.hasDefault && !create.some((p) => p.field === field)) {
      problems.push({
        path: 'create',
        message: `${field.name.camel} is required and has no default, so the constructor must set it`,
        fix: `add ${field.name.camel} to create, or give it a default`,
      });
    }
  }
  const methods = resolveMethods(scope, spec.updates ?? [], spec.actions ?? []);
  // A numbered field is set once, on create, from its sequence: nothing else may set it.
  const numbered = (field: FieldModel | undefined) =>
    field?.sequence
      ? {
          message: `${field.name.camel} is numbered by its sequence on create`,
          fix: `remove ${field.name.camel}; the Create handler sets it`,
        }
      : undefined;
  create.forEach((p, i) => {
    const why = numbered(p.field);
    if (why) problems.push({ path: `create[${i}]`, ...why });
  });
  methods.forEach((m) => {
    const list = m.kind === 'update' ? spec.updates : spec.actions;
    const i = (list ?? []).findIndex((s) => s.name === m.name.pascal);
    const base = `${m.kind === 'update' ? 'updates' : 'actions'}[${i}]`;
    m.params.forEach((p, j) => {
      const why = numbered(p.field);
      if (why) problems.push({ path: `${base}.parameters[${j}]`, ...why });
    });
    m.effects.forEach((e, j) => {
      const why = numbered(e.field);
      if (why) problems.push({ path: `${base}.effects[${j}]`, ...why });
    });
  });
  const dto = resolveDto(spec, stored, problems);
  const events = resolveEvents(spec, stored, problems);
  const referenceData = resolveReferenceData(spec.referenceData, owned, own, problems);
  (spec.idempotent ?? []).forEach((op, i) => {
    const kind = op === 'Update' ? 'update' : op === 'Action' ? 'action' : undefined;
    if (kind && !methods.some((m) => m.kind === kind)) {
      problems.push({
        path: `idempotent[${i}]`,
        message: `names ${op}, but the entity has no ${kind === 'update' ? 'updates' : 'actions'}`,
        fix: `remove ${op}, or declare ${kind === 'update' ? 'updates' : 'actions'}`,
      });
    }
  });
  if (problems.length > 0) throw new EntitySpecError(source, problems);
  const table = spec.table ?? snakeCase(plural.pascal);
  for (const field of own) {
    if (field.sequence && !field.sequence.name) {
      field.sequence.name = `${table}_${field.column}`.slice(0, 63);
    }
  }
  return {
    name: entity,
    plural,
    table,
    resource: spec.resource ?? kebabCase(plural.pascal),
    folder: kebabCase(plural.pascal),
    audited,
    owned,
    validate: spec.validate ?? true,
    ...(spec.description ? { description: spec.description } : {}),
    fields: stored,
    create,
    methods,
    dto,
    events,
    idempotent: spec.idempotent ?? [],
    ...(referenceData ? { referenceData } : {}),
  };
}
