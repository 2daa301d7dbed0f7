// The key pattern check, bounded in time: a catastrophic custom pattern answers "no match" after
// 100 ms instead of hanging the process, while the default pattern stays a plain RegExp test.
import vm from 'node:vm';

/** The spec's default key pattern: letters, digits, hyphen and underscore. */
export const DEFAULT_KEY_PATTERN = '^[a-zA-Z0-9\\-_]+$';

/** The fixed bound on one pattern match; a match still running then counts as a mismatch. */
export const KEY_PATTERN_TIMEOUT_MS = 100;

/** Answers whether a key matches; `false` also when the match ran out of time. */
export type KeyMatcher = (key: string) => boolean;

/**
 * Compiles `pattern` into a matcher; throws `SyntaxError` when it is not a valid expression.
 *
 * The default pattern has no nested quantifier, so it runs linearly in the key's length (which is
 * capped at `maxIdempotencyKeyLength` before the pattern runs): it is tested directly.
 * Any other pattern runs inside a `vm` context with a timeout, the one mechanism Node offers that
 * interrupts a running regular expression. The watchdog costs a few microseconds per match,
 * which is why the default pattern does not pay it.
 */
export function compileKeyPattern(pattern: string): KeyMatcher {
  // Throws SyntaxError for an invalid pattern, in this realm, so validation can report it.
  const direct = new RegExp(pattern);
  if (pattern === DEFAULT_KEY_PATTERN) {
    return function matchesDefaultPattern(key) {
      return direct.test(key);
    };
  }
  const sandbox = vm.createContext({ source: pattern, key: '', matched: false });
  vm.runInContext('var re = new RegExp(source);', sandbox);
  const test = new vm.Script('matched = re.test(key);', { filename: 'idempotency-key-pattern' });
  return function matchesBoundedPattern(key) {
    sandbox.key = key;
    sandbox.matched = false;
    try {
      test.runInContext(sandbox, { timeout: KEY_PATTERN_TIMEOUT_MS });
    } catch {
      // ERR_SCRIPT_EXECUTION_TIMEOUT: the spec treats a timeout as a mismatch.
      return false;
    } finally {
      sandbox.key = '';
    }
    return sandbox.matched === true;
  };
}
