// State shared by every copy of the runtime loaded in one process. An ESM app whose tests run under
// a require hook (mocha with tsx on Node 20.19+) loads the runtime twice: once through `require`
// for the test's own imports, once through `import()` for the slices found at start-up. Keeping
// registries on `globalThis` under a registered symbol lets both copies see one guard, one set of
// registrations and one set of event listeners.

/**
 * The process-wide value named `name`, created by `create` on first use.
 *
 * @example
 * const registrations = processWide('idempotency.registrations', () => new WeakMap());
 */
export function processWide<T>(name: string, create: () => T): T {
  const key = Symbol.for(`@slicekit/runtime:${name}`);
  const slots = globalThis as unknown as Record<symbol, T | undefined>;
  return (slots[key] ??= create());
}
