// RFC 9457 problem details: the body of every 4xx/5xx response the runtime produces.
import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { SlicekitError } from '../errors.js';

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

/**
 * An error that becomes a problem response when it reaches `problemErrorHandler`.
 *
 * @example
 * throw new ProblemError(404, 'product 42 does not exist');
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
    super(`http_${status}`, detail, options);
    this.status = status;
    this.extensions = { title: options?.title ?? statusTitle(status), ...extensions };
  }

  toProblem(instance?: string): ProblemDetails {
    const { title, ...rest } = this.extensions;
    return {
      title: String(title),
      status: this.status,
      detail: this.message,
      ...(instance ? { instance } : {}),
      ...rest,
    };
  }
}

/** Writes `problem` as `application/problem+json` with its status. */
export function sendProblem(res: Response, problem: ProblemDetails): void {
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}
