// `sliceRoute`: the route wrapper of generated slices. It hands the route what it needs, typed:
// the `:id` parameter, the caller and, for a route with a request schema, the body validated
// against that schema and typed from it (json-schema-to-ts), so a route file needs no casts.
import type { Request, RequestHandler, Response } from 'express';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { callerOf, type Caller } from './caller.js';
import { crudRoute } from './routes.js';
import { validateBody, type ValidateBodyOptions } from './validate.js';

/** What a slice route is given. */
export interface SliceCall {
  /** The `:id` route parameter; reading it on a route without one throws (a mapping mistake). */
  readonly id: string;
  /** Who is asking, and their `If-Match` (`callerOf(req)`). */
  readonly caller: Caller;
  /** The Express request, for what the others do not say (`req.baseUrl`, headers). */
  readonly req: Request;
}

/** What a slice route with a request schema is given: the call and its valid body. */
export interface SliceCallWithBody<B> extends SliceCall {
  /** The request body, valid against the route's schema (when validation is on). */
  readonly body: B;
}

type Route<C> = (call: C, res: Response) => Promise<void>;

/**
 * The type of a body valid against `S` (json-schema-to-ts). A conditional type, so it is worked
 * out only for a concrete schema: inferring a `JSONSchema`-bound parameter is too deep for tsc.
 */
export type BodyOf<S> = S extends JSONSchema ? FromSchema<S> : never;

function callOf(req: Request): SliceCall {
  return {
    get id(): string {
      const id: unknown = req.params.id;
      if (typeof id !== 'string') {
        throw new Error(`${req.method} ${req.route?.path ?? req.path} has no :id parameter`);
      }
      return id;
    },
    caller: callerOf(req),
    req,
  };
}

/**
 * A route of a generated slice: `crudRoute` (problems answered as problem+json, rule violations
 * as 409/422) handing the route a typed `{ id, caller, req }`. Given a request schema (an
 * `as const` JSON Schema), the body is first validated against it (`validateBody`, with its
 * options) and handed over as `body`, typed from the schema.
 *
 * @example
 * router.get('/products/:id', sliceRoute(async ({ id, caller }, res) => {
 *   sendEntity(res, await handlers.getById(id, caller));
 * }));
 * router.put('/products/:id', sliceRoute(changePriceSchema, async ({ id, body, caller }, res) => {
 *   sendEntity(res, await handlers.changePrice(id, body, caller));
 * }));
 */
export function sliceRoute(route: Route<SliceCall>): RequestHandler;
export function sliceRoute<S extends object>(
  body: S,
  route: Route<SliceCallWithBody<BodyOf<S>>>,
): RequestHandler;
export function sliceRoute<S extends object>(
  body: S,
  options: ValidateBodyOptions,
  route: Route<SliceCallWithBody<BodyOf<S>>>,
): RequestHandler;
export function sliceRoute(
  ...args:
    | [Route<SliceCall>]
    | [object, Route<SliceCallWithBody<unknown>>]
    | [object, ValidateBodyOptions, Route<SliceCallWithBody<unknown>>]
): RequestHandler {
  if (args.length === 1) {
    const [route] = args;
    return crudRoute(function runSliceRoute(req, res) {
      return route(callOf(req), res);
    });
  }
  const [schema, options, route] = args.length === 2 ? [args[0], {}, args[1]] : args;
  const validate = validateBody(schema, options);
  const run = crudRoute(function runSliceRoute(req, res) {
    return route(Object.assign(callOf(req), { body: req.body as unknown }), res);
  });
  return function validateThenRun(req, res, next) {
    validate(req, res, (error?: unknown) => {
      if (error === undefined) {
        run(req, res, next);
      } else {
        next(error);
      }
    });
  };
}
