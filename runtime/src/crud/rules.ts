// How a generated route answers a business rule an entity refused: the `RuleViolation` (domain/,
// free of HTTP) becomes a 409 or 422 problem+json with the stable code `crud.rule_violation`.
import type { RuleViolation } from '../domain/errors.js';
import { ProblemError } from '../http/problem.js';

export const RULE_VIOLATION_TYPE = 'urn:slicekit:problem:rule-violation';

/**
 * The problem of a change a business rule refused: its status (409 unless the rule said 422), its
 * message as `detail` and its own code as `rule`.
 *
 * @example
 * ruleViolated(new RuleViolation('order.place.status', 'Place needs status draft')).status // 409
 */
export function ruleViolated(violation: RuleViolation): ProblemError {
  const status = violation.status === 422 ? 422 : 409;
  return new ProblemError(status, violation.message, {
    type: RULE_VIOLATION_TYPE,
    code: 'crud.rule_violation',
    rule: violation.rule,
  });
}
