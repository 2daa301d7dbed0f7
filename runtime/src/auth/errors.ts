// Errors of the auth area: a configuration mistake found when the middleware is built.
import { SlicekitError } from '../errors.js';

/** The auth options cannot work (for example `required` without any way to verify a token). */
export class AuthConfigError extends SlicekitError {
  override name = 'AuthConfigError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('auth_config_invalid', message, options);
  }
}
