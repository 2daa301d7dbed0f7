// How a generated route answers a business rule an entity refused: the `RuleViolation` (domain/,
// free of HTTP) becomes a 409 or 422 problem+json with the stable code `crud.rule_violation`.
import type { RuleViolation } from '../domain/index.js';
import { ProblemError, problemKinds } from '../http/index.js';

export const RULE_VIOLATION_TYPE = problemKinds['crud.rule_violation'].type;

/**
 * The problem of a change a business rule refused: its status (409 unless the rule said 422), its
 * message as `detail` and its own code as `rule`.
 *
 * @example
 * ruleViolated(new RuleViolation('order.place.status', 'Place needs status draft')).status // 409
 */
export function ruleViolated(violation: RuleViolation): ProblemError {
  const status = violation.status === 422 ? 422 : 409;
  return ProblemError.of(
    'crud.rule_violation',
    violation.message,
    { rule: violation.rule },
    { status },
  );
}
