// The 401 answer of the auth area: a problem with the RFC 6750 `WWW-Authenticate` challenge.
import type { Request, Response } from 'express';
import { problemDetails, sendProblem } from '../http/index.js';

/**
 * Answers 401 `auth.unauthorized`. RFC 6750 section 3: a 401 names the scheme and, when a token
 * was sent, why it failed. The description is a quoted-string, so the detail's own double quotes
 * become single ones.
 */
export function unauthorized(req: Request, res: Response, detail: string, error?: string): void {
  const description = detail.replace(/"/g, "'");
  const challenge = error
    ? `Bearer error="${error}", error_description="${description}"`
    : 'Bearer';
  res.setHeader('WWW-Authenticate', challenge);
  sendProblem(res, problemDetails('auth.unauthorized', { detail, instance: req.originalUrl }));
}
