// @slicekit/runtime/domain: what entity classes may throw, free of HTTP and of the database.
// See docs/generated-code.md.
export { isRuleViolation, RuleViolation, type RuleViolationOptions } from './errors.js';
// The base of every slicekit error, for code that needs it without loading the whole runtime.
export { SlicekitError } from '../errors.js';
