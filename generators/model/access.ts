// The spec's `access`: who may call each operation (docs/access.md). The structure only says it is
// a mapping; each operation name and rule is checked here, so every mistake is reported in one run.
import { nameOneOf, type SpecProblem } from './errors.js';
import type { AccessModel, AccessRule, AccessSpec, MethodModel } from './types.js';

/** The structure of `access` (spec schema): a mapping; its meaning is checked below. */
export const accessSchema = {
  type: 'object',
  fix: 'map operations to anyone, authenticated or a list of roles, e.g. { list: anyone, delete: [admin] }',
} as const;

const WORDS = ['anyone', 'authenticated'];
const RULE_FIX = 'write anyone, authenticated, or a list of role names, e.g. [admin, clerk]';

/** The operations `access` may name, in route order. */
export function accessOperations(
  methods: readonly MethodModel[],
  patch: boolean,
  softDelete = false,
): string[] {
  return [
    'list',
    'get',
    'create',
    ...methods.filter((m) => m.kind === 'update').map((m) => m.name.pascal),
    ...(patch ? ['patch'] : []),
    'delete',
    ...(softDelete ? ['restore'] : []),
    ...methods.filter((m) => m.kind === 'action').map((m) => m.name.pascal),
  ];
}

function ruleOf(path: string, value: unknown, problems: SpecProblem[]): AccessRule | undefined {
  if (value === 'anyone' || value === 'authenticated') return value;
  if (typeof value === 'string') {
    problems.push({
      path,
      message: `"${value}" is not anyone or authenticated`,
      fix: `${RULE_FIX}; for one role write [${value}]`,
    });
    return undefined;
  }
  if (!Array.isArray(value)) {
    problems.push({ path, message: `${JSON.stringify(value)} is not a rule`, fix: RULE_FIX });
    return undefined;
  }
  if (value.length === 0) {
    problems.push({
      path,
      message: 'lists no role, so nobody could call it',
      fix: 'name at least one role, or write authenticated',
    });
    return undefined;
  }
  const roles: string[] = [];
  value.forEach((role: unknown, i) => {
    const at = `${path}[${i}]`;
    if (typeof role !== 'string' || role.trim() === '') {
      problems.push({
        path: at,
        message: `${JSON.stringify(role)} is not a role name`,
        fix: "write each role as text, e.g. admin (quote a role that looks like a number: '3')",
      });
    } else if (WORDS.includes(role)) {
      problems.push({
        path: at,
        message: `${role} is not a role`,
        fix: `write ${role} on its own, not in a list: ${path.split('.').at(-1)}: ${role}`,
      });
    } else if (roles.includes(role)) {
      problems.push({ path: at, message: `${role} is listed twice`, fix: 'remove one' });
    } else {
      roles.push(role);
    }
  });
  return roles.length === value.length ? roles : undefined;
}

/**
 * The resolved `access` of a spec: each named operation checked against the entity's operations
 * (`operations`), each rule against its forms.
 */
export function resolveAccess(
  access: AccessSpec | undefined,
  operations: readonly string[],
  problems: SpecProblem[],
): AccessModel {
  const model: AccessModel = {};
  for (const [operation, value] of Object.entries(access ?? {})) {
    const path = `access.${operation}`;
    if (!operations.includes(operation)) {
      problems.push({
        path,
        message: `"${operation}" is not an operation of this entity`,
        fix: nameOneOf(operation, operations),
      });
      continue;
    }
    const rule = ruleOf(path, value, problems);
    if (rule) model[operation] = rule;
  }
  return model;
}
