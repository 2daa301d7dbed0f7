// @slicekit/runtime/domain: what entity classes may throw, free of HTTP and of the database.
// See docs/generated-code.md.
export { isRuleViolation, RuleViolation, type RuleViolationOptions } from './errors.js';
