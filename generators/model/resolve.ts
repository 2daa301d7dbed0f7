// Spec -> model: checks the structure with ajv, then the meaning (references between keys), and
// resolves every default and name form once. Throws EntitySpecError listing every problem.
import { fieldKinds } from '@slicekit/runtime/fields';
import { kebabCase, nameForms, pluralize, snakeCase, withArticle } from '../names.js';
import { didYouMean, EntitySpecError, type SpecProblem } from './errors.js';
import {
  auditFields,
  deletionFields,
  constraintProblems,
  exampleProblems,
  fieldModel,
  idField,
  ownerField,
  RESERVED,
  tenantField,
  valueProblem,
} from './fields.js';
import { exactUnique, ignoreCaseWithoutText } from './exact-unique.js';
import { resolveMethods } from './methods.js';
import { resolveRules } from './rules.js';
import { resolveParams, type Scope } from './params.js';
import { referenceField, referenceProblems } from './references.js';
import { resolveReferenceData } from './reference-data.js';
import { resolveSequence } from './sequences.js';
import { structuralProblems, withoutStructuralProblems } from './structure.js';
import { resolveDto } from './dto.js';
import { resolveEvents } from './events.js';
import { listIndexProblems } from './indexes.js';
import { accessOperations, resolveAccess, resolveBypass } from './access.js';
import type { EntityModel, EntitySpec, FieldModel } from './types.js';

function resolveFields(
  spec: EntitySpec,
  problems: SpecProblem[],
  entity: { pascal: string; plural: string; table: string },
): FieldModel[] {
  const fields: FieldModel[] = [];
  for (const [name, field] of Object.entries(spec.fields)) {
    const path = `fields.${name}`;
    const reserved = RESERVED[name];
    if (reserved) {
      problems.push({ path, message: `${name} is reserved`, fix: reserved });
      continue;
    }
    problems.push(...constraintProblems(path, field.type, field));
    problems.push(...referenceProblems(path, name, field));
    if (field.type === 'reference') {
      if (/Ids?$/.test(name)) continue; // named after its id: refused above
      const reference = referenceField(name, field, entity);
      if (spec.fields[reference.name.camel] || fields.some((f) => f.name === reference.name)) {
        problems.push({
          path,
          message: `holds ${reference.name.camel}, which is also a field of its own`,
          fix: `rename one of them`,
        });
      }
      fields.push(reference);
      continue;
    }
    if (field.unique && fieldKinds[field.type].indexable === false) {
      problems.push({
        path: `${path}.unique`,
        message: `${withArticle(field.type)} column cannot carry a unique index on every database`,
        fix: 'use type string with a maxLength, or remove unique',
      });
    }
    problems.push(...ignoreCaseWithoutText(path, name, field));
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
          fix:
            field.type === 'enum' && typeof field.default === 'string'
              ? `${didYouMean(field.default, field.values ?? [])}give one of its values`
              : `give a default ${withArticle(field.type)} field can hold`,
        });
    }
    problems.push(...exampleProblems(path, model));
    fields.push(model);
  }
  return fields;
}

/**
 * The problems of meaning of a spec with structural problems, found with those set aside
 * (structure.ts), so that one round reports every mistake; none when they cannot be set aside.
 */
function echoFree(input: unknown): { problems: SpecProblem[]; partial?: EntityModel } {
  const repaired = withoutStructuralProblems(input);
  if (!repaired) return { problems: [] };
  try {
    return { problems: [], partial: resolveSpec(repaired.spec, '') };
  } catch (error) {
    if (!(error instanceof EntitySpecError)) return { problems: [] };
    const echo = (path: string) =>
      repaired.around.some((at) => {
        // A problem at or under the place set aside, or under the field or method holding it.
        const holder = at.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
        return [at, holder].some(
          (p) => p && (path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)),
        );
      });
    return {
      problems: error.problems.filter((p) => !echo(p.path)),
      ...(error.partial ? { partial: error.partial } : {}),
    };
  }
}

/**
 * Checks and resolves a spec. `source` names it in the error (a file path, or `the prompts`).
 *
 * @example
 * const model = resolveSpec(YAML.parse(text), 'docs/examples/product.yaml');
 */
export function resolveSpec(input: unknown, source: string): EntityModel {
  const structural = structuralProblems(input);
  if (structural.length > 0) {
    const { problems, partial } = echoFree(input);
    throw new EntitySpecError(source, [...structural, ...problems], partial ? { partial } : {});
  }
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
  const owned = Boolean(spec.owned);
  const tenant = spec.tenant ?? false;
  const ownerBypass = resolveBypass(spec.owned, problems);
  const softDelete = spec.softDelete ?? false;
  const table = spec.table ?? snakeCase(plural.pascal);
  const declared = resolveFields(spec, problems, {
    pascal: entity.pascal,
    plural: plural.pascal,
    table,
  });
  problems.push(...exactUnique(spec, declared));
  // A many-to-many is kept in its join table: a field of the entity, but no column of its own.
  const links = declared.filter((f) => f.reference?.many);
  const own = declared.filter((f) => !f.reference?.many);
  const stored = [
    idField(),
    ...own,
    ...(owned ? [ownerField()] : []),
    ...(tenant ? [tenantField()] : []),
    ...(audited ? auditFields() : []),
    ...(softDelete ? deletionFields() : []),
  ];
  // A reference is named by its relation (`customer`) or its id (`customerId`) alike.
  const fields = new Map(
    declared.flatMap((f) => [
      [f.name.camel, f] as const,
      ...(f.reference ? [[f.reference.name.camel, f] as const] : []),
    ]),
  );
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
    spec.create ?? declared.filter((f) => !f.hasDefault && !f.sequence).map((f) => f.name.camel),
    false,
  );
  for (const field of declared) {
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
  const rules = resolveRules(scope, spec.rules ?? []);
  const dto = resolveDto(spec, stored, problems);
  problems.push(...listIndexProblems(declared, dto));
  const events = resolveEvents(spec, stored, problems);
  const patch = spec.patch ?? false;
  const access = resolveAccess(spec.access, accessOperations(methods, patch, softDelete), problems);
  // Restore (and listing deleted rows) is let through to whom delete is, unless access names it.
  if (softDelete && access.restore === undefined && access.delete) access.restore = access.delete;
  // PATCH is let through to whom the first update method is, unless access names it.
  const firstUpdate = methods.find((m) => m.kind === 'update');
  const updateRule = firstUpdate ? access[firstUpdate.name.pascal] : undefined;
  if (patch && access.patch === undefined && updateRule) access.patch = updateRule;
  const taken = methods.find((m) => m.requestName === `Patch${entity.pascal}Request`);
  if (patch && taken) {
    problems.push({
      path: 'patch',
      message: `Patch${entity.pascal}Request is also ${taken.name.pascal}'s request`,
      fix: `rename the method ${taken.name.pascal}, or leave patch out`,
    });
  }
  const referenceData = resolveReferenceData(spec.referenceData, { owned, tenant }, own, problems);
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
  for (const field of own) {
    if (field.sequence && !field.sequence.name) {
      field.sequence.name = `${table}_${field.column}`.slice(0, 63);
    }
  }
  const model: EntityModel = {
    name: entity,
    plural,
    table,
    resource: spec.resource ?? kebabCase(plural.pascal),
    folder: kebabCase(plural.pascal),
    audited,
    owned,
    ownerBypass,
    tenant,
    validate: spec.validate ?? true,
    searchIndex: spec.searchIndex ?? true,
    ...(spec.description ? { description: spec.description } : {}),
    fields: stored,
    links,
    collections: Object.entries(spec.collections ?? {}).map(([name, c]) => ({
      name: nameForms(name),
      entity: c.entity,
      ...(c.via ? { via: c.via } : {}),
      ...(c.show ? { show: c.show } : {}),
    })),
    create,
    methods,
    dto,
    events,
    idempotent: spec.idempotent ?? [],
    ...(referenceData ? { referenceData } : {}),
    rules,
    patch,
    softDelete,
    ...(Object.keys(access).length > 0 ? { access } : {}),
  };
  // The model is built even so: a run checks it against the app and the other specs as well.
  if (problems.length > 0) throw new EntitySpecError(source, problems, { partial: model });
  return model;
}
