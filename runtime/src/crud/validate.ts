// Request validation (design.md, departure 1): a body is checked against its JSON Schema with ajv
// before the handler runs, and a bad one is answered 400 problem+json listing each field error; a
// body that is not JSON is 415.
import type { Request, RequestHandler, Response } from 'express';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { DECIMAL_PLACES, NOT_BLANK, requestAjv } from '../fields/index.js';
import { problemDetails, sendProblem } from '../http/index.js';
import { invalidRequest, type FieldError } from './errors.js';

const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = requestAjv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** ajv's errors as field errors: `required` names the missing property, not its parent. */
export function fieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  return errors.map((error) => {
    const at = pointerToField(error.instancePath);
    if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty?: string }).missingProperty);
      return {
        field: at ? `${at}.${missing}` : missing,
        message: 'is required',
        keyword: 'required',
      };
    }
    if (error.keyword === 'additionalProperties') {
      const extra = String((error.params as { additionalProperty?: string }).additionalProperty);
      return {
        field: at ? `${at}.${extra}` : extra,
        message: 'is not a property of this request; remove it',
        keyword: error.keyword,
      };
    }
    if (error.keyword === NOT_BLANK) {
      return { field: at, message: 'must not be blank', keyword: error.keyword };
    }
    if (error.keyword === DECIMAL_PLACES) {
      return {
        field: at,
        message: 'has more decimal places than the field keeps',
        keyword: error.keyword,
      };
    }
    if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      return {
        field: at,
        message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
        keyword: 'enum',
      };
    }
    return { field: at, message: error.message ?? 'is invalid', keyword: error.keyword };
  });
}

/** The keyword of a field error for a string holding a NUL character. */
export const NO_NUL_CHARACTER = 'x-no-nul-character';

/**
 * A field error for every string in `body` (values and property names, at any depth) holding a
 * NUL character (U+0000). PostgreSQL refuses NUL in text, answering a 500, while SQLite and MySQL
 * store it: refusing it here gives the same 400 on every database, whatever the schema says.
 *
 * @example
 * nulCharacterErrors({ name: 'a\u0000b' }) // [{ field: 'name', keyword: 'x-no-nul-character', ... }]
 */
export function nulCharacterErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const message = 'must not contain a NUL character (U+0000)';
  // Iterative, so a deeply nested body cannot exhaust the stack.
  const pending: { value: unknown; at: string; key: string }[] = [{ value: body, at: '', key: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, at, key } = next;
    const bad = key.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000'));
    if (bad) errors.push({ field: at, message, keyword: NO_NUL_CHARACTER });
    if (typeof value !== 'object' || value === null) continue;
    // Pushed last to first, so they are visited (and reported) in the body's order.
    for (const [name, child] of Object.entries(value).reverse()) {
      pending.push({ value: child, at: at ? `${at}.${name}` : name, key: name });
    }
  }
  return errors;
}

function refuse(req: Request, res: Response, errors: readonly FieldError[]): void {
  sendProblem(res, invalidRequest(errors).toProblem(req.originalUrl));
}

/** The media type a route's body must have; what `express.json()` parses by default. */
const JSON_MEDIA_TYPE = 'application/json';

/**
 * Whether the request came with a body the JSON parser left alone (`req.body` unset): one of
 * another media type, or of none. A body of no bytes is no body.
 */
function unparsedBody(req: Request): boolean {
  if (req.body !== undefined) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** 415 with `Accept` (RFC 9110 section 15.5.16): the body is not of a media type the route reads. */
function refuseMediaType(req: Request, res: Response, accepted: readonly string[]): void {
  const sent = req.headers['content-type'] ?? null;
  const wanted = accepted.join(' or ');
  res.setHeader('Accept', accepted.join(', '));
  // A PATCH route says which patch formats it reads (RFC 5789 section 3.1).
  if (req.method === 'PATCH') res.setHeader('Accept-Patch', accepted.join(', '));
  sendProblem(
    res,
    problemDetails('http.unsupported_media_type', {
      detail: sent
        ? `the request body is ${sent}; send it as ${wanted}`
        : `the request body has no Content-Type; send it as ${wanted}`,
      instance: req.originalUrl,
      contentType: sent,
      accepted: [...accepted],
    }),
  );
}

/** Options of `validateBody`. */
export interface ValidateBodyOptions {
  /**
   * Validation on or off; off lets every body through untouched, except strings holding a NUL
   * character, which no database stores alike (`nulCharacterErrors`). @default true
   */
  enabled?: boolean;
  /**
   * The media types a 415 names as accepted; a parser before the route must read each of them.
   * @default ['application/json']
   */
  accepted?: readonly string[];
}

/**
 * Middleware checking `req.body` against `schema` (compiled once, here). A missing body counts
 * as `{}`, so an action without parameters needs none; a body the JSON parser did not read (sent
 * as `text/plain`, or with no Content-Type) is 415 `http.unsupported_media_type`. Invalid bodies
 * get a 400 problem whose `errors` list `{ field, message, keyword }` for each mistake, including
 * each string holding a NUL character.
 *
 * @example
 * router.post('/products', validateBody(createProductRequestSchema), createRoute);
 */
export function validateBody(schema: object, options: ValidateBodyOptions = {}): RequestHandler {
  const accepted = options.accepted ?? [JSON_MEDIA_TYPE];
  if (options.enabled === false) {
    return function skipValidation(req, res, next) {
      if (unparsedBody(req)) return refuseMediaType(req, res, accepted);
      if (req.body === undefined) req.body = {};
      const errors = nulCharacterErrors(req.body);
      if (errors.length > 0) return refuse(req, res, errors);
      next();
    };
  }
  const validate = compile(schema);
  return function validateRequestBody(req, res, next) {
    if (unparsedBody(req)) return refuseMediaType(req, res, accepted);
    if (req.body === undefined) req.body = {};
    const valid = validate(req.body);
    const nul = nulCharacterErrors(req.body);
    if (valid && nul.length === 0) {
      next();
      return;
    }
    refuse(req, res, [...fieldErrors(validate.errors ?? []), ...nul]);
  };
}
