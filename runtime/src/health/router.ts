// The probes: GET /health/live (the process can serve) and GET /health/ready (its dependencies
// answer within a bound, and it is not shutting down).
import { Router } from 'express';
import { problemDetails, sendProblem } from '../http/index.js';
import { downReason, type HealthCheck } from './check.js';

/** Default bound of one readiness evaluation, in milliseconds. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

export interface HealthRouterOptions {
  /** What readiness is made of; each runs on every ready probe. */
  checks: readonly HealthCheck[];
  /** Longest wait for the checks; a check still running then is down (`timeout`). @default 2000 */
  timeoutMs?: number;
  /** Whether the process is shutting down: readiness is then 503 at once. @default never */
  draining?: () => boolean;
}

/** One check's state in the ready body; `reason` never carries a driver's message. */
export interface CheckReport {
  name: string;
  status: 'up' | 'down';
  critical: boolean;
  /** Why it is down: a `HealthCheckDown`'s message, `timeout`, or the error's code. */
  reason?: string;
}

/**
 * Runs every check in parallel, each bounded by `timeoutMs` (its signal aborts then), and reports
 * each one in the order given. Never rejects.
 */
export async function runChecks(
  checks: readonly HealthCheck[],
  timeoutMs: number = DEFAULT_HEALTH_TIMEOUT_MS,
): Promise<CheckReport[]> {
  return Promise.all(
    checks.map(async (check): Promise<CheckReport> => {
      const critical = check.critical ?? true;
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new TimedOut());
        }, timeoutMs);
      });
      try {
        const running = Promise.resolve().then(() => check.check(controller.signal));
        // A check that ignores its signal settles later, unobserved: not an unhandled rejection.
        running.catch(() => undefined);
        await Promise.race([running, timedOut]);
        return { name: check.name, status: 'up', critical };
      } catch (error) {
        const reason = error instanceof TimedOut ? 'timeout' : downReason(error);
        return { name: check.name, status: 'down', critical, reason };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

class TimedOut extends Error {}

/**
 * The two probe routes, for an app to mount before authentication. `/health/live` answers 200
 * without touching any dependency. `/health/ready` answers 200 with `{ status, checks }` when
 * every critical check is up (a non-critical one down is reported, still 200), else 503
 * problem+json `health.unready` naming what is down; 503 at once while `draining()`. Probes that
 * arrive while an evaluation runs share it, so a stalled database is not asked once per probe.
 *
 * Mounted at its two paths (as a generated app does), no other request passes through it;
 * `app.use(healthRouter(...))` works too.
 *
 * @example
 * app.get(['/health/live', '/health/ready'], healthRouter({ checks: [databaseCheck(knex)] }));
 */
export function healthRouter(options: HealthRouterOptions): Router {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  const router = Router();
  let running: Promise<CheckReport[]> | undefined;

  router.get('/health/live', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'up' });
  });

  router.get('/health/ready', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    if (options.draining?.()) {
      sendProblem(res, unready('the process is shutting down', []));
      return;
    }
    running ??= runChecks(options.checks, timeoutMs).finally(() => (running = undefined));
    const checks = await running;
    const down = checks.filter((check) => check.status === 'down' && check.critical);
    if (down.length === 0) {
      res.json({ status: 'up', checks });
      return;
    }
    const names = down.map((check) => check.name).join(', ');
    sendProblem(
      res,
      unready(`not ready: ${names} ${down.length === 1 ? 'is' : 'are'} down`, checks),
    );
  });

  return router;
}

function unready(detail: string, checks: CheckReport[]) {
  return problemDetails('health.unready', { detail, checks });
}
