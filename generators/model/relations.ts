// Relations between the entities of an app: each reference, many-to-many and collection checked
// against the entity it names (it exists, the fields it shows are that entity's, no cycle that no
// migration order could create), resolved into plain data for the views, and the order in which
// entities must be generated and migrated (every referenced entity first).
import { stableUuid } from '@slicekit/runtime/fields';
import { didYouMean, EntitySpecError, nameOneOf, type SpecProblem } from './errors.js';
import { cycleProblems, referencesOf, routeProblems } from './relation-checks.js';
import type {
  EntityModel,
  EntityRelations,
  FieldModel,
  RelationTarget,
  ResolvedCollection,
  ResolvedLink,
  ResolvedReference,
} from './types.js';

/** How many sample rows a seed writes (generators/entity/views/seed.ts). */
const SEED_ROWS = 5;

/** The ids of the rows an entity's seed, or its reference data, creates. */
function rowIds(e: EntityModel): string[] {
  const reference = e.referenceData;
  if (reference) {
    return reference.rows.map((row) => {
      const identity = reference.key.map((f) => String(row[f.name.camel])).join(':');
      return stableUuid(`${e.name.pascal}:reference:${identity}`);
    });
  }
  return Array.from({ length: SEED_ROWS }, (_, i) => stableUuid(`${e.name.pascal}:row:${i}`));
}

const targetOf = (e: EntityModel): RelationTarget => ({
  name: e.name,
  plural: e.plural,
  table: e.table,
  resource: e.resource,
  folder: e.folder,
  owned: e.owned,
  softDelete: e.softDelete,
  rowIds: rowIds(e),
  deleteNeedsKey: e.idempotent.includes('Delete'),
  deleteRoles: Array.isArray(e.access?.delete) ? e.access.delete : [],
});

/** What a nested member of `target` shows by default: its own short fields the DTO has. */
function defaultShow(target: EntityModel): FieldModel[] {
  return target.dto.filter(
    (f) => f.role === 'field' && !['text', 'json', 'reference'].includes(f.type),
  );
}

/** The fields `names` picks from `target`'s DTO, or its default; problems for unknown names. */
function shown(
  names: readonly string[] | undefined,
  target: EntityModel,
  path: string,
  problems: SpecProblem[],
): FieldModel[] {
  if (!names) return defaultShow(target);
  const available = target.dto.filter((f) => f.role !== 'id');
  return names.flatMap((name, i) => {
    const field = available.find((f) => f.name.camel === name || f.reference?.name.camel === name);
    if (field) return [field];
    problems.push({
      path: `${path}.show[${i}]`,
      message: `"${name}" is not a field of ${target.name.pascal}'s DTO`,
      fix: `${nameOneOf(
        name,
        available.map((f) => f.name.camel),
      )} (its id is always shown)`,
    });
    return [];
  });
}

/** Edges of the reference graph: who must exist before whom (self-references left out). */
function dependencies(e: EntityModel): string[] {
  return referencesOf(e)
    .map(({ field }) => field.reference!.entity)
    .filter((name) => name !== e.name.pascal);
}

function checkEntity(
  e: EntityModel,
  byName: ReadonlyMap<string, EntityModel>,
  all: readonly EntityModel[],
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const { field, path } of referencesOf(e)) {
    const ref = field.reference!;
    const target = byName.get(ref.entity);
    if (!target) {
      problems.push({
        path: `${path}.entity`,
        message: `${ref.entity} is not an entity of this app yet`,
        fix:
          didYouMean(ref.entity, [...byName.keys()]) +
          `generate ${ref.entity} first (npx plop entity -- --spec <${ref.entity} spec>), or both ` +
          `at once (npx plop entity -- --spec <folder holding both specs>)`,
      });
      continue;
    }
    shown(ref.show, target, path, problems);
    if (target.softDelete && !e.softDelete && !ref.many && ref.onDelete === 'cascade') {
      problems.push({
        path: `${path}.onDelete`,
        message: `${target.name.pascal} soft-deletes, so its delete would soft-delete the ${e.plural.words} referring to it, but ${e.name.pascal} has no softDelete`,
        fix: `give ${e.name.pascal} softDelete: true, or use onDelete: restrict or setNull`,
      });
    }
    if (ref.joinTable) {
      const join = ref.joinTable;
      const clash = all.find((other) => other.table === join.table);
      if (clash || join.localKey === join.foreignKey) {
        problems.push({
          path: `${path}.joinTable`,
          message: clash
            ? `"${join.table}" is ${clash.name.pascal}'s table`
            : `both columns of "${join.table}" would be ${join.localKey}`,
          fix: 'name the join table with joinTable: ..., or the relation otherwise',
        });
      }
    }
  }
  problems.push(...cycleProblems(e, byName));
  problems.push(...routeProblems(e, byName, all));
  e.collections.forEach((c) => {
    const path = `collections.${c.name.camel}`;
    const child = byName.get(c.entity);
    if (child) collectionVia(e, c, child, path, problems);
  });
  return problems;
}

/** The child's reference field a collection of `parent` goes through. */
function collectionVia(
  parent: EntityModel,
  c: EntityModel['collections'][number],
  child: EntityModel,
  path: string,
  problems: SpecProblem[],
): FieldModel | undefined {
  const candidates = child.fields.filter((f) => f.reference?.entity === parent.name.pascal);
  const via = c.via
    ? candidates.find((f) => f.reference!.name.camel === c.via || f.name.camel === c.via)
    : candidates.length === 1
      ? candidates[0]
      : undefined;
  if (!via) {
    problems.push({
      path: c.via ? `${path}.via` : path,
      message:
        candidates.length === 0
          ? `${child.name.pascal} has no reference to ${parent.name.pascal}`
          : c.via
            ? `"${c.via}" is not ${child.name.pascal}'s reference to ${parent.name.pascal}`
            : `${child.name.pascal} references ${parent.name.pascal} more than once`,
      fix:
        candidates.length === 0
          ? `add one to ${child.name.pascal}: ${parent.name.camel}: { type: reference, entity: ${parent.name.pascal} }`
          : `say which with via: ${candidates.map((f) => f.reference!.name.camel).join(' or ')}`,
    });
    return undefined;
  }
  shown(c.show, child, path, problems);
  return via;
}

function relationsOf(e: EntityModel, byName: ReadonlyMap<string, EntityModel>): EntityRelations {
  const ignored: SpecProblem[] = [];
  const resolve = (field: FieldModel): ResolvedReference => {
    const target = byName.get(field.reference!.entity)!;
    return {
      field,
      target: targetOf(target),
      show: shown(field.reference!.show, target, '', ignored),
    };
  };
  const collections: ResolvedCollection[] = [];
  const deferred: EntityRelations['deferred'] = [];
  for (const c of e.collections) {
    const child = byName.get(c.entity);
    const via = child && collectionVia(e, c, child, '', ignored);
    if (!child || !via) {
      deferred.push({ name: c.name.camel, entity: c.entity });
      continue;
    }
    collections.push({
      name: c.name,
      child: targetOf(child),
      via,
      show: shown(c.show, child, '', ignored),
    });
  }
  return {
    references: e.fields.filter((f) => f.reference && byName.has(f.reference.entity)).map(resolve),
    links: e.links
      .filter((f) => byName.has(f.reference!.entity))
      .map((f): ResolvedLink => ({ ...resolve(f), joinTable: f.reference!.joinTable! })),
    collections,
    deferred,
  };
}

/**
 * Checks the relations of the entities named in `checked` (entity name -> the spec's source, for
 * the error) against every entity of the app, and answers every entity with its relations
 * resolved. Throws EntitySpecError listing each problem, prefixed by the entity when several
 * specs are checked at once.
 */
export function resolveRelations(
  entities: readonly EntityModel[],
  checked: ReadonlyMap<string, string>,
): EntityModel[] {
  const byName = new Map(entities.map((e) => [e.name.pascal, e]));
  const failed = entities.flatMap((e) => {
    const source = checked.get(e.name.pascal);
    if (source === undefined) return [];
    const problems = checkEntity(e, byName, entities);
    return problems.length ? [{ source, entity: e.name.pascal, problems }] : [];
  });
  if (failed.length === 1) throw new EntitySpecError(failed[0]!.source, failed[0]!.problems);
  if (failed.length > 1) {
    throw new EntitySpecError(
      `the specs (${failed.map((f) => f.source).join(', ')})`,
      failed.flatMap((f) => f.problems.map((p) => ({ ...p, path: `${f.entity}: ${p.path}` }))),
    );
  }
  return entities.map((e) => ({ ...e, relations: relationsOf(e, byName) }));
}

/**
 * The entities in an order that creates every referenced table first (their order otherwise kept).
 * Cycles were refused by `resolveRelations`; what is left of one keeps its place.
 */
export function dependencyOrder<E extends EntityModel>(entities: readonly E[]): E[] {
  const names = new Set(entities.map((e) => e.name.pascal));
  const placed = new Set<string>();
  const out: E[] = [];
  let pending = [...entities];
  while (pending.length > 0) {
    const ready = pending.filter((e) =>
      dependencies(e).every((d) => placed.has(d) || !names.has(d)),
    );
    const batch = ready.length > 0 ? [ready[0]!] : [pending[0]!];
    for (const e of batch) {
      placed.add(e.name.pascal);
      out.push(e);
    }
    pending = pending.filter((e) => !batch.includes(e));
  }
  return out;
}

/** The entities `e` references (and so depends on), self aside. */
export function referencedEntities(e: EntityModel): string[] {
  return [...new Set(dependencies(e))];
}
