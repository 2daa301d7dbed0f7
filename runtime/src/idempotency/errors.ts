// Errors of the idempotency guard: misconfiguration found when the app starts, or on a request.
import { SlicekitError } from '../errors.js';

/** Stable codes of the guard's errors; documented in docs/idempotency.md. */
export const IdempotencyErrorCode = {
  /** The options break one or more rules; every broken rule is listed. */
  optionsInvalid: 'idempotency_options_invalid',
  /** A guarded request came to an app that registered no guard (`addIdempotentKey` is missing). */
  notStarted: 'idempotency_not_started',
  /** `requiredIdempotentKey()` was mounted where no route verb exists (`app.use`, `router.use`). */
  misplaced: 'idempotency_guard_misplaced',
  /** The registered store (or what its class or factory built) lacks a contract method. */
  storeUnusable: 'idempotency_store_unusable',
  /** An authentication ran after the guard and changed the caller its scope was resolved for. */
  scopeBeforeAuthentication: 'idempotency_scope_before_authentication',
} as const;

export type IdempotencyErrorCode = (typeof IdempotencyErrorCode)[keyof typeof IdempotencyErrorCode];

/** The resolved options break rules; thrown by `prepareApp`/`startApp` before the app listens. */
export class OptionsValidationError extends SlicekitError {
  override name = 'OptionsValidationError';
  /** One sentence per broken rule, in the order the rules are checked. */
  readonly failures: readonly string[];

  constructor(failures: readonly string[]) {
    super(
      IdempotencyErrorCode.optionsInvalid,
      `invalid idempotency options: ${failures.join('; ')}`,
    );
    this.failures = failures;
  }
}

/** The guard is wired wrongly (not registered, mounted off a route, or before authentication). */
export class IdempotencyConfigError extends SlicekitError {
  override name = 'IdempotencyConfigError';

  constructor(
    code: Exclude<IdempotencyErrorCode, 'idempotency_options_invalid'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
