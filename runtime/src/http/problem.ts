// RFC 9457 problem details: the body of every 4xx/5xx response the runtime produces.
import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { SlicekitError } from '../errors.js';
import {
  genericProblemCode,
  isProblemCode,
  problemKinds,
  type ProblemCode,
  type ProblemKind,
} from './problem-kinds.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem document; extension members are allowed beside the standard ones. */
export interface ProblemDetails {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

// RFC 9110's reason phrases where they differ from Node's older table (413, 422); Node's
// STATUS_CODES for every other status.
const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * The standard reason phrase for a status, used as the default problem title; `'Error'` only for
 * a status HTTP does not define.
 *
 * @example
 * statusTitle(413) // 'Content Too Large'
 */
export function statusTitle(status: number): string {
  return titles[status] ?? STATUS_CODES[status] ?? 'Error';
}

/** The members of a problem beside `type`, `title`, `status` and `code`. */
export interface ProblemMembers {
  /** What went wrong with this request, in words a client can show. */
  detail: string;
  /** The request's path (and query); `sendProblem` fills it in when it is left out. */
  instance?: string;
  /** Needed only for a kind that answers with more than one status. */
  status?: number;
  [extension: string]: unknown;
}

/**
 * A problem of the declared kind `code`, members in the one order every problem has: `type`,
 * `title` (the status's reason phrase), `status`, `detail`, `instance`, `code`, then the kind's
 * own extension members.
 *
 * @example
 * problemDetails('http.not_found', { detail: 'no route for GET /v2', instance: '/v2' })
 */
export function problemDetails(code: ProblemCode, members: ProblemMembers): ProblemDetails {
  const { detail, instance, status, ...extensions } = members;
  return shapeProblem({
    type: problemKinds[code].type,
    title: '',
    status: kindStatus(code, status),
    detail,
    ...(instance ? { instance } : {}),
    code,
    ...extensions,
  });
}

/** The status of a problem of kind `code`: `status` when given, else the kind's only one. */
function kindStatus(code: ProblemCode, status: number | undefined): number {
  const { statuses } = problemKinds[code] as ProblemKind;
  const only = Array.isArray(statuses) && statuses.length === 1 ? statuses[0] : undefined;
  const chosen = status ?? only;
  if (chosen === undefined) {
    throw new SlicekitError('http.invalid_problem', `a ${code} problem needs its status`);
  }
  return chosen;
}

/**
 * `problem` with the members every problem has, in their order: `type` from its `code` (a code
 * not declared in `problemKinds` keeps its type, or gets `about:blank`), `title` the reason phrase
 * when empty, `instance` when given, and `code` the generic one of its status when missing.
 */
export function shapeProblem(problem: ProblemDetails, instance?: string): ProblemDetails {
  const { type, title, status, detail, instance: own, code, ...extensions } = problem;
  const named = typeof code === 'string' && code !== '' ? code : genericProblemCode(status);
  const at = own ?? instance;
  return {
    type: isProblemCode(named) ? problemKinds[named].type : (type ?? 'about:blank'),
    title: title || statusTitle(status),
    status,
    detail: detail ?? statusTitle(status),
    ...(at ? { instance: at } : {}),
    code: named,
    ...extensions,
  };
}

/**
 * An error that becomes a problem response when it reaches a generated app's problem handler,
 * `crudRoute` or the list handler. Its `code` is the problem's: a declared kind's
 * (`ProblemError.of`), one of the caller's own, or the generic one of its status.
 *
 * @example
 * throw ProblemError.of('crud.not_found', 'product 42 does not exist', { id: '42' });
 * throw new ProblemError(429, 'slow down'); // code http.client_error
 */
export class ProblemError extends SlicekitError {
  override name = 'ProblemError';
  readonly status: number;
  readonly extensions: Record<string, unknown>;

  constructor(
    status: number,
    detail: string,
    extensions: Record<string, unknown> = {},
    options?: { cause?: unknown; title?: string },
  ) {
    const code = typeof extensions.code === 'string' ? extensions.code : genericProblemCode(status);
    super(code, detail, options);
    this.status = status;
    this.extensions = { title: options?.title ?? statusTitle(status), ...extensions, code };
  }

  /**
   * The error of a declared problem kind, with its status (give `options.status` for a kind
   * that has several) and its extension members.
   *
   * @example
   * throw ProblemError.of('crud.duplicate', 'another product has this name', { fields: ['name'] });
   */
  static of(
    code: ProblemCode,
    detail: string,
    extensions: Record<string, unknown> = {},
    options?: { cause?: unknown; status?: number },
  ): ProblemError {
    const status = kindStatus(code, options?.status);
    return new ProblemError(status, detail, { ...extensions, code }, { cause: options?.cause });
  }

  toProblem(instance?: string): ProblemDetails {
    const { title, ...rest } = this.extensions;
    return shapeProblem({
      ...rest,
      title: String(title),
      status: this.status,
      detail: this.message,
      ...(instance ? { instance } : {}),
    });
  }
}

/**
 * Writes `problem` as `application/problem+json` with its status, shaped by `shapeProblem`
 * (its `instance` the request's URL when it has none).
 */
export function sendProblem(res: Response, problem: ProblemDetails): void {
  const shaped = shapeProblem(problem, (res.req as Request | undefined)?.originalUrl);
  res.status(shaped.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(shaped));
}
