// Builds small Express apps guarded by the idempotency guard, with a logger that keeps every
// entry so tests can assert what reached the logs.
import express, { type Express, type Request, type Response } from 'express';
import {
  addIdempotentKey,
  prepareApp,
  type ConfigureIdempotency,
  type IdempotencyLogger,
} from '@slicekit/runtime/idempotency';

export interface LogEntry {
  level: 'info' | 'warn' | 'error' | 'debug';
  obj: unknown;
  msg?: string;
}

/** A pino-compatible logger that records entries; `text()` is everything it saw, as JSON. */
export function recordingLogger(): IdempotencyLogger & { entries: LogEntry[]; text(): string } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (obj: unknown, msg?: string): void => {
      entries.push({ level, obj, msg });
    };
  return {
    entries,
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    text: () =>
      JSON.stringify(entries, (_key, value: unknown) =>
        value instanceof Error ? { message: value.message, stack: value.stack } : value,
      ),
  };
}

/** Counts handler runs per route. */
export class Runs {
  private readonly counts = new Map<string, number>();
  hit(name: string): number {
    const next = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, next);
    return next;
  }
  of(name: string): number {
    return this.counts.get(name) ?? 0;
  }
}

export interface GuardedApp {
  app: Express;
  runs: Runs;
  logger: ReturnType<typeof recordingLogger>;
}

/**
 * An app with JSON bodies, the default (memory) registration configured by `configure`, and the
 * routes `routes` adds; prepared (validated, store started, coverage decided) before it returns.
 */
export async function guardedApp(
  routes: (app: Express, runs: Runs) => void,
  configure: ConfigureIdempotency = () => {},
): Promise<GuardedApp> {
  const app = express();
  app.use(express.json());
  const runs = new Runs();
  const logger = recordingLogger();
  addIdempotentKey(app, (options) => {
    options.logger = logger;
    configure(options);
  });
  routes(app, runs);
  await prepareApp(app);
  return { app, runs, logger };
}

/** A handler answering `status` with a JSON body naming the route and its run number. */
export function counting(runs: Runs, name: string, status = 201) {
  return (_req: Request, res: Response): void => {
    res.status(status).json({ route: name, run: runs.hit(name) });
  };
}
