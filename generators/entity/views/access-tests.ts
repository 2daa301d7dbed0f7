// What the slice test needs for the spec's `access`: every role named (the test callers hold them
// all unless told), and per operation needing a caller, how to call it and who may.
import type { EntityModel } from '../../model/types.js';
import type { MethodBase, SliceBase } from './base.js';

/** One operation under test: its route, a body, and the rule it keeps. */
export interface AccessTest {
  operation: string;
  /** `PUT /v1/products/{id}` */
  title: string;
  httpMethod: string;
  onItem: boolean;
  /** Path after `/{id}`, for an update method or an action. */
  tail: string;
  body?: unknown;
  requiresKey: boolean;
  /** The roles allowed; empty for `authenticated`. */
  roles: string[];
  /** The status a caller who may call it gets on a collection route. */
  allowedStatus?: number;
  /**
   * A create naming rows of an owned entity (the seeded ones, of no caller): per role, the answers
   * letting it through, 422 for a role that does not bypass that entity's ownership.
   */
  letThrough?: Record<string, number[]>;
}

/** The access view of `<folder>.test.ts`; `methods` carry the bodies the method tests send. */
export function accessTestsView(
  model: EntityModel,
  base: SliceBase,
  methods: readonly (MethodBase & { testBody: unknown })[],
) {
  const access = model.access ?? {};
  const rolesOf = (operation: string) => {
    const rule = access[operation];
    return rule === undefined || rule === 'anyone'
      ? undefined
      : rule === 'authenticated'
        ? []
        : rule;
  };
  const tests: AccessTest[] = [];
  const add = (test: Omit<AccessTest, 'roles'>) => {
    const roles = rolesOf(test.operation);
    if (roles) tests.push({ ...test, roles });
  };
  const { apiPath, requiresKey } = base;
  const collection = { onItem: false, tail: '', requiresKey: false };
  add({
    ...collection,
    operation: 'list',
    title: `GET ${apiPath}`,
    httpMethod: 'get',
    allowedStatus: 200,
  });
  add({
    onItem: true,
    tail: '',
    requiresKey: false,
    operation: 'get',
    title: `GET ${apiPath}/{id}`,
    httpMethod: 'get',
  });
  add({
    ...collection,
    operation: 'create',
    title: `POST ${apiPath}`,
    httpMethod: 'post',
    requiresKey: requiresKey.create,
    ...createLetThrough(model, rolesOf('create') ?? []),
  });
  for (const m of methods) {
    add({
      operation: m.pascal,
      title: `${m.verb} ${m.docPath}`,
      httpMethod: m.httpMethod,
      onItem: true,
      tail: m.segment ? `/${m.segment}` : '',
      body: m.testBody,
      requiresKey: m.requiresKey,
    });
  }
  add({
    operation: 'delete',
    title: `DELETE ${apiPath}/{id}`,
    httpMethod: 'delete',
    onItem: true,
    tail: '',
    requiresKey: requiresKey.delete,
  });
  if (model.softDelete) {
    add({
      operation: 'restore',
      title: `POST ${apiPath}/{id}/restore`,
      httpMethod: 'post',
      onItem: true,
      tail: '/restore',
      requiresKey: requiresKey.delete,
    });
  }
  // The test's callers also delete the rows its references name (what onDelete does).
  const parents = (model.relations?.references ?? []).flatMap((r) => r.target.deleteRoles);
  const everyRole = [
    ...new Set([...Object.values(access).flatMap((r) => (Array.isArray(r) ? r : [])), ...parents]),
  ];
  return {
    accessTests: tests,
    everyRole,
    hasAccess: base.access.length > 0 || everyRole.length > 0,
    // Signed here with the test's roles and tenant: access, tenants, bypass roles or parents' roles.
    localBearer:
      base.access.length > 0 ||
      base.isTenant ||
      base.ownerBypass.length > 0 ||
      everyRole.length > 0,
  };
}

/**
 * What a holder of each role allowed to create gets from a create whose body names seeded rows of
 * an owned entity: those rows are no caller's, so only a role bypassing its ownership sees them
 * (201 or 409), any other gets 422 as for a missing row. Nothing when the body names no owned row.
 */
function createLetThrough(
  model: EntityModel,
  roles: readonly string[],
): { letThrough?: Record<string, number[]> } {
  const createNames = new Set(model.create.map((p) => p.name.camel));
  const owned = [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])].filter(
    (r) => createNames.has(r.field.name.camel) && r.target.owned,
  );
  if (owned.length === 0) return {};
  const callers = roles.length > 0 ? roles : ['no-such-role'];
  return {
    letThrough: Object.fromEntries(
      callers.map((role) => [
        role,
        owned.every((r) => r.target.ownerBypass.includes(role)) ? [201, 409] : [201, 409, 422],
      ]),
    ),
  };
}
