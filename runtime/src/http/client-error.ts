// Client mistakes that Express, its router and its body parser raise as errors with a 4xx status:
// each becomes a 4xx problem with a stable `code`, never a 500. Every code is in problem-kinds.ts
// and docs/problems.md.
import { problemDetails, statusTitle, type ProblemDetails } from './problem.js';
import type { ProblemCode } from './problem-kinds.js';

/** The `code` member of the problems this area answers with. */
export const HttpProblemCode = {
  /** 400: a path segment is not valid percent-encoding (`/v1/products/%`). */
  MalformedPath: 'http.malformed_path',
  /** 400: the body is not valid JSON. */
  MalformedJson: 'http.malformed_json',
  /** 413: the body is larger than the parser accepts. */
  BodyTooLarge: 'http.body_too_large',
  /** 415: the body's charset or content encoding is not supported. */
  UnsupportedBody: 'http.unsupported_body',
  /** 415: a route that takes a JSON body was sent another media type (`text/plain`). */
  UnsupportedMediaType: 'http.unsupported_media_type',
  /** 404: no route has the path. */
  NotFound: 'http.not_found',
  /** 405: the path is known, the method is not; `Allow` lists the methods. */
  MethodNotAllowed: 'http.method_not_allowed',
  /** Any other 4xx error Express or a middleware raised. */
  ClientError: 'http.client_error',
  /** 400, 408, 413 or 431 from Node's HTTP parser, before Express saw a request. */
  MalformedRequest: 'http.malformed_request',
  /** 500: an unexpected error; the server log has the details. */
  InternalError: 'http.internal_error',
} as const satisfies Record<string, ProblemCode>;
export type HttpProblemCode = (typeof HttpProblemCode)[keyof typeof HttpProblemCode];

// The fields of an http-errors error (body-parser) or of the router's URIError that matter here.
interface HttpErrorLike {
  name?: unknown;
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  message?: unknown;
  limit?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

function clientStatusOf(error: HttpErrorLike): number | undefined {
  const status = typeof error.status === 'number' ? error.status : error.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500
    ? status
    : undefined;
}

function described(
  error: HttpErrorLike,
  status: number,
): { code: HttpProblemCode; detail: string } {
  if (error instanceof URIError || error.name === 'URIError') {
    return {
      code: HttpProblemCode.MalformedPath,
      detail: 'the URL path is not valid percent-encoding',
    };
  }
  switch (error.type) {
    case 'entity.parse.failed':
      return { code: HttpProblemCode.MalformedJson, detail: 'the request body is not valid JSON' };
    case 'entity.too.large':
      return {
        code: HttpProblemCode.BodyTooLarge,
        detail:
          typeof error.limit === 'number'
            ? `the request body is larger than the ${error.limit} bytes accepted`
            : 'the request body is too large',
      };
    case 'charset.unsupported':
      return {
        code: HttpProblemCode.UnsupportedBody,
        detail: `the charset ${JSON.stringify(String(error.charset ?? ''))} is not supported; use utf-8`,
      };
    case 'encoding.unsupported':
      return {
        code: HttpProblemCode.UnsupportedBody,
        detail: `the content encoding ${JSON.stringify(String(error.encoding ?? ''))} is not supported`,
      };
  }
  // http-errors marks a message safe for clients with `expose`; any other message stays inside.
  const message = error.expose === true && typeof error.message === 'string' ? error.message : '';
  return { code: HttpProblemCode.ClientError, detail: message || statusTitle(status) };
}

/**
 * The problem answering an error that carries a 4xx `status` (or `statusCode`): the router's
 * URIError for a malformed path, body-parser's 400/413/415, any http-errors error. `undefined`
 * for every other error, which the caller answers as a 500.
 *
 * @example
 * const problem = clientProblemOf(error, req.originalUrl);
 * if (problem) return sendProblem(res, problem);
 */
export function clientProblemOf(error: unknown, instance?: string): ProblemDetails | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = clientStatusOf(error as HttpErrorLike);
  if (status === undefined) return undefined;
  const { code, detail } = described(error as HttpErrorLike, status);
  return problemDetails(code, { status, detail, ...(instance ? { instance } : {}) });
}
