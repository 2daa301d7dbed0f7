// Small pieces the generated route files are built from: which operations to map, who the caller
// is, and a wrapper answering a thrown ProblemError (404, 400) or RuleViolation (409, 422) as
// problem+json.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { principalId, requireAccess, type AccessRule } from '../auth/index.js';
import { answerDatabaseUnavailable } from '../database/index.js';
import { isRuleViolation } from '../domain/index.js';
import { ProblemError, requestQuery, sendProblem } from '../http/index.js';
import type { SliceDescription } from '../openapi/index.js';
import { CrudOptionsError } from './errors.js';
import { callerOf } from './caller.js';
import { liveRowsOnly, scopeRows, type DeletedRows } from './repository.js';
import { ruleViolated } from './rules.js';
import type { EntityTable } from './table.js';
import { CRUD_OPS, type CrudMapOptions, type CrudOp } from './types.js';

/**
 * The operations left to map once `options.exclude` is applied; an unknown name is refused, so a
 * typo cannot silently keep a route.
 *
 * @example
 * const ops = mappedOps({ exclude: ['Delete'] }); ops.has('Delete') // false
 */
export function mappedOps(options: CrudMapOptions = {}): ReadonlySet<CrudOp> {
  const excluded = options.exclude ?? [];
  for (const op of excluded) {
    if (!CRUD_OPS.includes(op)) {
      throw new CrudOptionsError(
        `exclude: "${String(op)}" is not a CrudOp; use ${CRUD_OPS.join(', ')}`,
      );
    }
  }
  return new Set(CRUD_OPS.filter((op) => !excluded.includes(op)));
}

/** The acting principal for audit fields: `req.user.id`, or empty when anonymous. */
export function principalOf(req: Request): string {
  return principalId(req) ?? '';
}

/**
 * The list route's per-request scope for `table`: the rows of the caller's row scope (its tenant's
 * of a tenant table, its own of an owned table: what `visibleRows` allows the other routes); for a
 * soft-deleting table, its live rows, or what `?deleted=include|only` asks for (the route lets the
 * parameter through with `allowParameters` and checks who may ask with `deletedRowsAccess`); for
 * any other table, every row.
 *
 * @example
 * router.get('/products', listHandler(productResource, knex, { scope: callerRows(productTable) }));
 */
export function callerRows(
  table: EntityTable<unknown>,
): (qb: Knex.QueryBuilder, req: Request) => void {
  return function scopeToCaller(qb, req) {
    liveRowsOnly(scopeRows(qb, table, callerOf(req)), table, deletedAsked(req));
  };
}

const DELETED: readonly DeletedRows[] = ['exclude', 'include', 'only'];

/** The `?deleted=` of a list request (`exclude` when absent); 400 for any other value. */
function deletedAsked(req: Request): DeletedRows {
  const value = requestQuery(req).deleted;
  if (value === undefined) return 'exclude';
  if (typeof value === 'string' && (DELETED as readonly string[]).includes(value)) {
    return value as DeletedRows;
  }
  throw ProblemError.of('list_query.invalid', 'deleted must be exclude, include or only', {
    parameter: 'deleted',
    allowed: DELETED,
  });
}

/**
 * The role check of `?deleted=` on a list of `entity`: the callers `restore` allows (`rule`) may
 * list deleted rows; others get 401 or 403 as `requireAccess` answers. Without the parameter the
 * list goes on unchecked.
 *
 * @example
 * router.get('/books', deletedRowsAccess('Book', ['admin']), listHandler(...));
 */
export function deletedRowsAccess(entity: string, rule: AccessRule): RequestHandler {
  const check = requireAccess(entity, 'restore', rule);
  return function checkDeletedRows(req, res, next) {
    if (requestQuery(req).deleted === undefined) next();
    else void check(req, res, next);
  };
}

/**
 * Wraps an async route: a `ProblemError` it throws (unknown id, invalid id) or a `RuleViolation`
 * of an entity method (409 or 422, `crud.rule_violation`) is answered as problem+json here, with
 * the request's URL as `instance` like the app's error handler, and a database that did not
 * answer in time as 503 with `Retry-After` (`answerDatabaseUnavailable`); anything else goes to
 * that handler.
 */
export function crudRoute(route: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return function runCrudRoute(req: Request, res: Response, next: NextFunction) {
    route(req, res).catch((error: unknown) => {
      if (answerDatabaseUnavailable(error, req, res)) return;
      const problem = problemOf(error);
      if (problem && !res.headersSent) {
        sendProblem(res, problem.toProblem(req.originalUrl));
        return;
      }
      next(error);
    });
  };
}

/**
 * The problem a failure answers with: its own, the one of a business rule the entity refused, or
 * 409 for a sequence that reached its maximum (the create cannot succeed until the sequence is
 * raised; retrying does not help).
 */
function problemOf(error: unknown): ProblemError | undefined {
  if (error instanceof ProblemError) return error;
  if (isRuleViolation(error)) return ruleViolated(error);
  // Matched by code, so a sequences module loaded apart from this one is recognised too.
  const { code, message, sequence } = (error ?? {}) as {
    code?: unknown;
    message?: unknown;
    sequence?: unknown;
  };
  if (code !== 'sequence_exhausted') return undefined;
  return ProblemError.of('sequence_exhausted', String(message), { sequence });
}

// Restore stands with Delete: leaving deletes out leaves their restore out too.
const operationKinds: Record<CrudOp, readonly string[]> = {
  GetById: ['getById'],
  GetList: ['list'],
  Create: ['create'],
  Update: ['update'],
  Delete: ['delete', 'restore'],
  Action: ['action'],
};

/** A slice's OpenAPI description without the operations `options.exclude` removes. */
export function describeMapped(
  description: SliceDescription,
  options: CrudMapOptions = {},
): SliceDescription {
  const kinds = new Set([...mappedOps(options)].flatMap((op) => operationKinds[op]));
  return {
    ...description,
    operations: description.operations.filter((operation) => kinds.has(operation.kind)),
  };
}
