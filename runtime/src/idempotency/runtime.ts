// What the guard needs at request time, per app, set once by the start-up step: the resolved
// options, the started store and the compiled key matcher.
import type { KeyMatcher } from './pattern.js';
import type { ResolvedIdempotencyOptions } from './options.js';
import type { IdempotencyKeyStore } from './store.js';

export interface GuardRuntime {
  readonly options: ResolvedIdempotencyOptions;
  readonly store: IdempotencyKeyStore;
  readonly matches: KeyMatcher;
  /** `idempotencyHeaderKey` lower-cased, as Node keys `req.headers`. */
  readonly headerName: string;
  /** The header is the standard `Idempotency-Key`, whose value may be a Structured Field string. */
  readonly structuredKey: boolean;
  /** `replayedHeaders`, keyed lower-case (as Node names response headers) to their spelling. */
  readonly replayedHeaders: ReadonlyMap<string, string>;
}

const runtimes = new WeakMap<object, GuardRuntime>();

export function setGuardRuntime(app: object, runtime: GuardRuntime | undefined): void {
  if (runtime) runtimes.set(app, runtime);
  else runtimes.delete(app);
}

/** The runtime of `app`, or of the app it is mounted in (a sub-app inherits its parent's). */
export function guardRuntimeOf(app: object | undefined): GuardRuntime | undefined {
  for (let current = app as { parent?: object } | undefined; current; current = current.parent) {
    const runtime = runtimes.get(current);
    if (runtime) return runtime;
  }
  return undefined;
}
