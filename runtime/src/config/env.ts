// Strict readers of settings from environment variables: a value is either understood exactly or
// refused with a `ConfigError`, never quietly taken for the default (a fail-open `AUTH_REQUIRED`).
import { ConfigError } from './errors.js';

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

/**
 * The raw value of `name`, trimmed; undefined when unset or blank, so `PORT=` in a `.env` file
 * means the default as it does for the shell.
 */
function rawValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * A boolean setting: `true`, `false`, `1`, `0`, `yes`, `no`, `on` or `off`, in any case;
 * `fallback` when unset or blank. Anything else throws `ConfigError`.
 *
 * @example
 * const required = envBoolean(process.env, 'AUTH_REQUIRED', false); // AUTH_REQUIRED=TRUE → true
 */
export function envBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = rawValue(env, name);
  if (value === undefined) return fallback;
  const word = value.toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  throw new ConfigError(name, value, 'true, false, 1, 0, yes, no, on or off (any case)');
}

/** Inclusive bounds of an integer setting. */
export interface IntegerBounds {
  /** Smallest accepted value. @default Number.MIN_SAFE_INTEGER */
  min?: number;
  /** Largest accepted value. @default Number.MAX_SAFE_INTEGER */
  max?: number;
}

/**
 * A whole-number setting in decimal digits (an optional sign; no fraction, exponent, hex or unit),
 * within `bounds`; `fallback` when unset or blank. Anything else throws `ConfigError`.
 *
 * @example
 * const port = envInteger(process.env, 'PORT', 3000, { min: 1, max: 65535 });
 */
export function envInteger(
  env: Env,
  name: string,
  fallback: number,
  bounds: IntegerBounds = {},
): number {
  const value = rawValue(env, name);
  if (value === undefined) return fallback;
  const min = bounds.min ?? Number.MIN_SAFE_INTEGER;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const number = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(number) && number >= min && number <= max) return number;
  const range =
    bounds.min !== undefined && bounds.max !== undefined
      ? ` from ${min} to ${max}`
      : bounds.min !== undefined
        ? ` of at least ${min}`
        : bounds.max !== undefined
          ? ` of at most ${max}`
          : '';
  throw new ConfigError(name, value, `a whole number${range}`);
}

/**
 * A setting that is one of `choices` (compared in any case, answered as listed);
 * `fallback` when unset or blank. Anything else throws `ConfigError`.
 *
 * @example
 * const level = envChoice(process.env, 'LOG_LEVEL', ['error', 'warn', 'info', 'debug'], 'info');
 */
export function envChoice<const C extends string>(
  env: Env,
  name: string,
  choices: readonly C[],
  fallback: NoInfer<C>,
): C {
  const value = rawValue(env, name);
  if (value === undefined) return fallback;
  const found = choices.find((choice) => choice.toLowerCase() === value.toLowerCase());
  if (found !== undefined) return found;
  throw new ConfigError(name, value, `one of ${choices.join(', ')}`);
}
