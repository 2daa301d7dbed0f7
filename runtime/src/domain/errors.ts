// Errors of the domain: what an entity method throws when a business rule refuses a change. No
// HTTP here: the generated routes answer a RuleViolation as 409 or 422 problem+json
// (crud/routes.ts), and code outside a route can catch it like any other error.
import { SlicekitError } from '../errors.js';

/** Options of a `RuleViolation`. */
export interface RuleViolationOptions {
  /**
   * How a route answers it: 409 when the entity's current state forbids the change (an order
   * already placed), 422 when the request itself breaks the rule whatever the state. @default 409
   */
  status?: 409 | 422;
  cause?: unknown;
}

/**
 * A business rule refused a change; nothing is saved. `rule` is the rule's own stable code, which
 * clients may branch on; `message` says what was refused and why.
 *
 * @example
 * if (this.status !== 'draft') {
 *   throw new RuleViolation('order.place.status', `Place needs status draft; it is ${this.status}`);
 * }
 */
export class RuleViolation extends SlicekitError {
  override name = 'RuleViolation';
  /** The rule's own code (`order.place.status`). */
  readonly rule: string;
  /** The status a route answers with. */
  readonly status: 409 | 422;

  constructor(rule: string, message: string, options: RuleViolationOptions = {}) {
    super('crud.rule_violation', message, { cause: options.cause });
    this.rule = rule;
    this.status = options.status ?? 409;
  }
}

/** Whether `error` is a `RuleViolation`, also one thrown by another copy of the runtime. */
export function isRuleViolation(error: unknown): error is RuleViolation {
  if (error instanceof RuleViolation) return true;
  const { name, code, rule } = (error ?? {}) as { name?: unknown; code?: unknown; rule?: unknown };
  return name === 'RuleViolation' && code === 'crud.rule_violation' && typeof rule === 'string';
}
