// Errors of the config area: a setting read from the environment that the app cannot use.
import { SlicekitError } from '../errors.js';

/**
 * An environment variable holds a value its reader does not accept. The message names the
 * variable, the value it got and what it accepts, so it can be shown to an operator as it is.
 */
export class ConfigError extends SlicekitError {
  override name = 'ConfigError';
  /** The environment variable at fault, e.g. `AUTH_REQUIRED`. */
  readonly variable: string;
  /** The value it held. */
  readonly value: string;
  /** What it accepts, in words: `true, false, 1, 0, yes, no, on or off (any case)`. */
  readonly accepts: string;

  constructor(variable: string, value: string, accepts: string, options?: { cause?: unknown }) {
    super(
      'config_invalid',
      `invalid setting ${variable}=${JSON.stringify(value)}: expected ${accepts}`,
      options,
    );
    this.variable = variable;
    this.value = value;
    this.accepts = accepts;
  }
}
