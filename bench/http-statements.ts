// Statements per request of bench/http.ts, counted on the wire: an app started a second time with
// its DATABASE_URL through a StatementProxy, the write routes sent one request at a time, and
// everything the app sends its database counted, the outbox delivery after each commit included.
// The idle polling of the same span (measured before) is taken out.
import { protocolOf, type Db, type Server } from './http-apps.js';
import type { App, Route } from './http-load.js';
import { StatementProxy, statementShape } from './http-wire.js';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Counted {
  /** Statements per request, the delivery of its events included, the idle polling not. */
  perRequest: Record<string, number>;
  /** The statement shapes one request of each route sent (values taken out). */
  shapes: Record<string, string[]>;
}

/**
 * Counts the statements of `routes` on an app started by `start` (given the proxied database
 * URL), `samples` requests each. `app` lends the ids to use; nothing is deleted from it.
 */
export async function countStatements(
  db: Db,
  url: string,
  start: (url: string) => Promise<Server>,
  app: Omit<App, 'server'>,
  routes: Route[],
  samples = 20,
): Promise<Counted> {
  const proxy = await StatementProxy.start(url, protocolOf[db]);
  const server = await start(proxy.url(url));
  const perRequest: Record<string, number> = {};
  const shapes: Record<string, string[]> = {};
  try {
    const idleMs = 3000;
    await settle(1000);
    proxy.reset();
    await settle(idleMs);
    const idlePerMs = proxy.statements.length / idleMs;
    // The deletes take rows of their own, so the other routes still find theirs.
    const lent = { ...app, server, doomed: app.doomed.slice(-(samples + 5)) };
    for (const route of routes) {
      const send = async () => {
        const { method, path, headers, body } = route.request(lent);
        const response = await fetch(`${server.url}${path}`, { method, headers, body });
        await response.arrayBuffer();
        if (!response.ok)
          throw new Error(`${route.name}: ${method} ${path} answered ${response.status}`);
      };
      await send(); // warm-up, and the shapes below
      await settle(1500);
      proxy.reset();
      await send();
      await settle(1200);
      shapes[route.name] = proxy.statements.map(statementShape);
      proxy.reset();
      const started = Date.now();
      for (let i = 0; i < samples; i++) await send();
      // Deliveries of the last commits end within this wait.
      await settle(1200);
      const polled = idlePerMs * (Date.now() - started);
      perRequest[route.name] = Math.max(0, proxy.statements.length - polled) / samples;
    }
  } finally {
    await server.stop();
    await proxy.close();
  }
  return { perRequest, shapes };
}

/** The shapes one app sent that the other did not (the generated app's delivery aside). */
export function shapeDifferences(slicekit: string[], floor: string[]): string[] {
  const delivery =
    /slicekit_outbox" (set|where "status")|from "slicekit_outbox"|^begin transaction isolation|^set transaction isolation|^commit$/;
  const wanted = slicekit.filter((shape) => !delivery.test(shape.replaceAll('`', '"')));
  const missing = wanted
    .filter((shape) => shape !== 'begin' && !floor.includes(shape))
    .map((s) => `floor lacks: ${s}`);
  const extra = floor.filter(
    (shape) => !wanted.includes(shape) && !['begin', 'commit'].includes(shape),
  );
  return [...missing, ...extra.map((s) => `floor adds: ${s}`)];
}
