// Logger options that route every logged error through `safeError`, for pino or any logger with
// pino's `serializers` and `hooks.logMethod` options.
import { isDatabaseError, safeError, type SafeError } from './safe-error.js';

/** What `safeLoggerOptions` returns; spread it into `pino({ ... })`. */
export interface SafeLoggerOptions {
  serializers: { err: (value: unknown) => unknown; error: (value: unknown) => unknown };
  hooks: {
    logMethod(
      this: unknown,
      args: Parameters<(obj: unknown, msg?: string, ...rest: unknown[]) => void>,
      method: (this: unknown, ...args: never[]) => void,
    ): void;
  };
}

/**
 * pino options keeping row values out of logged errors: errors logged under `err` or `error` go
 * through `safeError`, and a database error logged without a message (`logger.error(err)`,
 * `logger.error({ err })`) gets one naming its code instead of pino's default, the error's own.
 *
 * @example
 * const logger = pino({ level: 'info', ...safeLoggerOptions() });
 */
export function safeLoggerOptions(): SafeLoggerOptions {
  return {
    serializers: { err: safeError, error: safeError },
    hooks: {
      logMethod(args, method) {
        const call = method as (this: unknown, ...args: unknown[]) => void;
        const [first, message] = args;
        // pino's default message is the error's own (`logger.error(err)`, or `{ err }` alone);
        // a call with a message of its own (every request line) is passed on as it is.
        if (message !== undefined) {
          call.apply(this, args);
          return;
        }
        const error = isDatabaseError(first) ? first : (first as { err?: unknown } | null)?.err;
        if (isDatabaseError(error)) {
          call.apply(this, [first, (safeError(error) as SafeError).message]);
          return;
        }
        call.apply(this, args);
      },
    },
  };
}
