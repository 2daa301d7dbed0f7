// Builds the Express app without listening, so tests can drive it in process with supertest.
import cors from 'cors';
import express, { type Express } from 'express';
import type { Knex } from 'knex';
import { requireVerifiedTenants, type AuthOptions } from '@slicekit/runtime/auth';
import { discoverSlices } from '@slicekit/runtime/crud';
import { databaseCheck, healthRouter, type HealthCheck } from '@slicekit/runtime/health';
import { prepareApp } from '@slicekit/runtime/idempotency';
import { httpMetrics } from '@slicekit/runtime/metrics';
import { openApiRouter } from '@slicekit/runtime/openapi';
import { adminRouter } from './admin.js';
import { authentication } from './auth.js';
import { adminEnabled, authSettings, corsOrigins } from './config.js';
import { notFound, problemHandler, wrongMethod } from './http/problems.js';
import { requestLog } from './http/request-log.js';
import { useIdempotency } from './idempotency.js';
import { migrations } from './knexfile.js';
import type { Logger } from './logger.js';
import { openApiDocument } from './openapi.js';

/** What every slice receives when it is mounted. */
export interface AppDeps {
  knex: Knex;
  logger: Logger;
  /** How callers are authenticated. @default the AUTH_* settings of config.ts */
  auth?: AuthOptions;
  /** What /health/ready checks, and whether the process is draining. @default the database */
  health?: HealthDeps;
}

/** Readiness: the checks src/server.ts assembles, and its shutdown state. */
export interface HealthDeps {
  checks: readonly HealthCheck[];
  /** True from SIGTERM on: readiness answers 503 at once. */
  draining?: () => boolean;
}

// Headers a browser page may read from an answer beside the CORS-safelisted ones.
const exposedHeaders = [
  'ETag',
  'Location',
  'Retry-After',
  'Idempotent-Replayed',
  'Preference-Applied',
];

/**
 * The app: CORS for the CORS_ORIGINS pages, the /health probes and the /admin page first (none
 * needs a caller), then JSON bodies, the caller from src/auth.ts, every slice found under `src/slices/` mounted at
 * `/v1`, `/openapi.json` and the `/docs` page, then 405 (with `Allow`) for a known path asked
 * with another method, 404 and problem+json errors. Adding a slice needs no edit here: slices are
 * discovered at start-up. The idempotency guard, when a slice needs it, is validated and started
 * before this resolves.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const app = express();
  const auth = deps.auth ?? authSettings;
  app.disable('x-powered-by');
  // First, so a request's duration covers everything after it (a no-op while metrics are off).
  app.use(httpMetrics());
  app.use(requestLog(deps.logger));
  // Before authentication: a browser's preflight carries no credentials.
  if (corsOrigins.length > 0) app.use(cors({ origin: corsOrigins, exposedHeaders, maxAge: 600 }));
  const health = deps.health ?? { checks: [databaseCheck(deps.knex, { migrations })] };
  // At its two paths only, so the requests to /v1 never pass through it.
  app.get(['/health/live', '/health/ready'], healthRouter(health));
  // The admin's static files (ADMIN_ENABLED=false leaves /admin out): the page itself needs no
  // caller; each API call it makes carries the caller's token.
  if (adminEnabled) app.use('/admin', adminRouter());
  app.use(express.json());
  app.use(authentication(auth));

  const slices = await discoverSlices(new URL('./slices/', import.meta.url));
  // Rows of tenant entities are reached only through a verified token's tenant: fails closed.
  requireVerifiedTenants(slices, auth);
  // Registered only when a route requires a key, so an app without one logs no store warning.
  if (slices.some((slice) => slice.idempotent)) await useIdempotency(app, deps.knex, deps.logger);
  const v1 = express.Router();
  for (const slice of slices) slice.mount(v1, deps);
  app.use('/v1', v1);

  const documentedAuth = auth.required
    ? 'required'
    : auth.jwtSecret || auth.jwksUrl
      ? 'optional'
      : 'none';
  app.use(openApiRouter({ document: () => openApiDocument(slices, documentedAuth) }));

  app.use(wrongMethod);
  app.use(notFound);
  app.use(problemHandler(deps.logger));
  await prepareApp(app);
  return app;
}
