// What readiness is made of: named checks that resolve when a dependency answers, and the one
// error whose message is safe to show a caller.
import { SlicekitError } from '../errors.js';

/**
 * One dependency readiness depends on. `check` resolves when it is up and rejects when it is down;
 * it should give up when `signal` aborts (the probe stops waiting for it then anyway).
 *
 * @example
 * const cache: HealthCheck = { name: 'cache', check: (signal) => redis.ping({ signal }) };
 */
export interface HealthCheck {
  /** Reported in the ready body and in the 503 problem; a word such as `database`. */
  name: string;
  /** Whether the process is unready while this check is down. @default true */
  critical?: boolean;
  check(signal: AbortSignal): Promise<void>;
}

/**
 * A check's reason for being down, written to be shown: the ready body reports its message. Any
 * other error is reported by its kind only (its `code` or class name), since a driver's message
 * may carry a host name, a URL or a password.
 *
 * @example
 * throw new HealthCheckDown('2 migrations are pending');
 */
export class HealthCheckDown extends SlicekitError {
  override name = 'HealthCheckDown';

  constructor(reason: string, options?: { cause?: unknown }) {
    super('health.check_down', reason, options);
  }
}

// An error code such as ECONNREFUSED, 57014, ER_ACCESS_DENIED_ERROR or database.unavailable: a
// kind, never a message.
const CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * What the ready body says about a check that failed with `error`: the message of a
 * `HealthCheckDown`, `timeout` when it did not answer in time, else the error's code or class name.
 */
export function downReason(error: unknown): string {
  if (error instanceof HealthCheckDown) return error.message;
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if ((typeof code === 'string' || typeof code === 'number') && CODE_PATTERN.test(String(code))) {
      return String(code);
    }
    if (typeof name === 'string' && CODE_PATTERN.test(name)) return name;
  }
  return 'error';
}
