// Which routes the guard covers: one route (`requiredIdempotentKey()` in its handler list) or
// every matching route of a router group. Groups are resolved once, at start, by walking the
// router stacks, so routes registered after the declaration and nested routers are seen, and
// coverage follows each route's declared verb, never the request.
import { METHODS } from 'node:http';
import type { Application, RequestHandler, Router } from 'express';
import { processWide } from '../process-state.js';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import { releaseOnError, requiredIdempotentKeyGuard } from './guard.js';
import { routeTemplates } from './runtime.js';
import {
  checkScopeStillCurrent,
  isAuthentication,
  scopeBeforeAuthentication,
} from './scope-order.js';

/** The parts of Express's router internals the walk reads (router 2.x, Express 5). */
interface RouteLike {
  path: unknown;
  methods: Record<string, boolean | undefined>;
  stack: LayerLike[];
  [verb: string]: unknown;
}
interface LayerLike {
  handle: { stack?: unknown } & ((...args: never[]) => unknown);
  method?: string;
  route?: RouteLike;
  rawPath?: unknown;
}
type Group = Router | Application;

const groupVerbs = processWide('idempotency.groupVerbs', () => new WeakMap<object, Set<string>>());
const processedRoutes = processWide('idempotency.processedRoutes', () => new WeakSet<object>());
// The guard of any copy of the runtime in the process is recognised (see process-state.ts).
const GUARD = Symbol.for('@slicekit/runtime:idempotency.guard');
(requiredIdempotentKeyGuard as unknown as Record<symbol, boolean>)[GUARD] = true;
const KNOWN_VERBS = new Set(METHODS.map((verb) => verb.toLowerCase()));

/** Protects one route: put it in the route's handler list, after any authentication. */
export function requiredIdempotentKey(): RequestHandler;
/**
 * Protects every route of `group` (a router, or the app itself) whose declared verb is listed
 * (case-insensitive; default POST only), including routes registered later and routes of nested
 * routers at any depth. Routes without a verb constraint (`all`, `use`) are never covered.
 *
 * @example
 * const orders = express.Router();
 * requiredIdempotentKey(orders, 'POST', 'DELETE');
 * app.use('/orders', orders);
 */
export function requiredIdempotentKey<G extends Group>(group: G, ...methods: string[]): G;
export function requiredIdempotentKey(group?: Group, ...methods: string[]): unknown {
  if (group === undefined) return requiredIdempotentKeyGuard;
  const verbs = (methods.length > 0 ? methods : ['POST']).map((verb) => verb.toLowerCase());
  for (const verb of verbs) {
    if (!KNOWN_VERBS.has(verb))
      throw new TypeError(`requiredIdempotentKey: unknown HTTP method ${verb}`);
  }
  const router = routerOf(group);
  const declared = groupVerbs.get(router) ?? new Set<string>();
  for (const verb of verbs) declared.add(verb);
  groupVerbs.set(router, declared);
  return group;
}

function routerOf(group: Group): object {
  const app = group as Application & { router?: object };
  // An app keeps its routes in `app.router` (created on first use in Express 5).
  return typeof app.listen === 'function' && app.router ? app.router : group;
}

/** One route and the verbs it is guarded for, found by `planCoverage`. */
interface RoutePlan {
  readonly route: RouteLike;
  readonly template: string | null;
  /** Verbs covered by a group and not declared on the route itself: start inserts the guard. */
  readonly insertFor: string[];
  /** Verbs (or `undefined` for an `all` layer) the route is guarded for: errors release. */
  readonly guardedFor: (string | undefined)[];
}

function joinPath(prefix: string | null, path: unknown): string | null {
  if (prefix === null || typeof path !== 'string') return null;
  if (path === '/' || path === '') return prefix === '' ? '/' : prefix;
  const joined = `${prefix}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

const isGuard = (layer: LayerLike) =>
  (layer.handle as unknown as Record<symbol, unknown>)[GUARD] === true;
const isRouter = (handle: unknown): handle is { stack: LayerLike[] } =>
  typeof handle === 'function' && Array.isArray((handle as { stack?: unknown }).stack);

/** Finds every guarded route of `app`; throws when the guard is mounted off a route. */
export function planCoverage(app: Application): RoutePlan[] {
  const plans: RoutePlan[] = [];
  const root = (app as Application & { router: { stack: LayerLike[] } }).router;
  walk(root.stack, groupVerbs.get(root) ?? new Set(), '', plans);
  return plans;
}

function walk(
  stack: LayerLike[],
  inherited: Set<string>,
  prefix: string | null,
  plans: RoutePlan[],
): void {
  for (const layer of stack) {
    if (layer.route) {
      const plan = planRoute(layer.route, inherited, joinPath(prefix, layer.rawPath));
      if (plan) plans.push(plan);
    } else if (isRouter(layer.handle)) {
      const own = groupVerbs.get(layer.handle);
      const verbs = own ? new Set([...inherited, ...own]) : inherited;
      walk(layer.handle.stack, verbs, joinPath(prefix, layer.rawPath), plans);
    } else if (isGuard(layer)) {
      throw new IdempotencyConfigError(
        IdempotencyErrorCode.misplaced,
        `requiredIdempotentKey() is mounted with use() at ${String(layer.rawPath)}, where no verb is declared; put it on a route (app.post(path, requiredIdempotentKey(), handler)) or declare a group with requiredIdempotentKey(router, ...verbs)`,
      );
    }
  }
}

function planRoute(
  route: RouteLike,
  groupCovered: Set<string>,
  template: string | null,
): RoutePlan | undefined {
  const own = route.stack.filter(isGuard).map((layer) => layer.method);
  const declared = route.methods._all
    ? [] // no verb constraint: never covered by a group
    : Object.keys(route.methods).filter((verb) => route.methods[verb] && groupCovered.has(verb));
  const insertFor = declared.filter((verb) => !own.includes(verb) && !own.includes(undefined));
  const guardedFor = [...new Set([...own, ...insertFor])];
  if (guardedFor.length === 0) return undefined;
  for (const verb of guardedFor) refuseLateAuthentication(route, template, verb, insertFor);
  return { route, template, insertFor, guardedFor };
}

/** The layers that run for `verb` (all of them for a guard mounted with `all`), in order. */
const layersFor = (route: RouteLike, verb: string | undefined) =>
  route.stack.filter((layer) => verb === undefined || layer.method === verb || !layer.method);

/** Throws when a layer of the route recognised as authentication runs after its guard. */
function refuseLateAuthentication(
  route: RouteLike,
  template: string | null,
  verb: string | undefined,
  insertFor: readonly string[],
): void {
  const layers = layersFor(route, verb);
  // A group's guard goes before the route's first handler for the verb: every layer follows it.
  const grouped = verb !== undefined && insertFor.includes(verb);
  const late = layers.slice(grouped ? 0 : layers.findIndex(isGuard) + 1);
  const authentication = late.find((layer) => isAuthentication(layer.handle));
  if (authentication) {
    const path = template ?? String(route.path);
    throw scopeBeforeAuthentication(verb ?? 'all', path, authentication.handle.name, grouped);
  }
}

/**
 * Adds `checkScopeStillCurrent` just before the route's final handler for `verb` when middleware
 * runs between the guard and that handler (one of them may authenticate unrecognised).
 */
function checkBeforeFinalHandler(route: RouteLike, verb: string): void {
  const layers = layersFor(route, verb);
  const guardAt = layers.findIndex(isGuard);
  if (guardAt === -1 || guardAt >= layers.length - 2) return;
  const final = route.stack.indexOf(layers[layers.length - 1]!);
  (route[verb] as (fn: unknown) => void).call(route, checkScopeStillCurrent);
  route.stack.splice(final, 0, route.stack.pop()!);
}

/** Inserts the guard where a group covers a route, and the error layer on every guarded route. */
export function applyCoverage(plans: readonly RoutePlan[]): void {
  for (const { route, template, insertFor, guardedFor } of plans) {
    // A route reachable through two mounts has no single template: the request's path decides.
    const known = routeTemplates.get(route);
    routeTemplates.set(route, known === undefined || known === template ? template : null);
    if (processedRoutes.has(route)) continue;
    processedRoutes.add(route);
    for (const verb of insertFor) {
      (route[verb] as (fn: unknown) => void).call(route, requiredIdempotentKeyGuard);
      const added = route.stack.pop()!;
      // Before the route's first handler for this verb, so the key is checked before it runs.
      const first = route.stack.findIndex((layer) => layer.method === verb);
      route.stack.splice(first === -1 ? route.stack.length : first, 0, added);
    }
    for (const verb of guardedFor) if (verb !== undefined) checkBeforeFinalHandler(route, verb);
    for (const verb of guardedFor) {
      const add = (verb === undefined ? route.all : route[verb]) as (fn: unknown) => void;
      add.call(route, releaseOnError);
    }
  }
}
