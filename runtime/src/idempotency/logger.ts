// The logger the guard writes to: any pino-compatible logger, or a small stderr default.

/** A pino-compatible logger (`pino()`, `req.log`, or anything with these four methods). */
export interface IdempotencyLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
}

function line(level: string, obj: unknown, msg?: string): void {
  const fields = typeof obj === 'object' && obj !== null ? obj : { msg: String(obj) };
  process.stderr.write(
    `${JSON.stringify({ level, time: Date.now(), ...fields, ...(msg ? { msg } : {}) }, errorFields)}\n`,
  );
}

// Errors serialize to {} by default; keep what an operator needs.
function errorFields(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

/**
 * Used when the app passes no logger: warnings and errors go to stderr as JSON lines, so the
 * memory-store warning and recording failures are never silently lost; info and debug are dropped.
 */
export const defaultLogger: IdempotencyLogger = {
  info() {},
  debug() {},
  warn: (obj, msg) => line('warn', obj, msg),
  error: (obj, msg) => line('error', obj, msg),
};

/** A logger that drops everything; handy in tests. */
export const silentLogger: IdempotencyLogger = {
  info() {},
  debug() {},
  warn() {},
  error() {},
};
