// The store conformance suite: the rules of the idempotency store contract as runnable cases,
// usable from mocha (or any runner with describe/it) or from a plain script.
import { conformanceCases } from './conformance-cases.js';
import { requestConformanceCases } from './conformance-request-cases.js';
import { createConformanceContext, type StoreConformanceOptions } from './conformance-context.js';

/** The part of a test runner the suite uses: mocha, jest and vitest globals all fit. */
export interface ConformanceRunner {
  describe(title: string, body: () => void): unknown;
  it(title: string, test: () => Promise<void>): unknown;
}

/** One runnable case, bound to a store factory. */
export interface BoundConformanceCase {
  readonly title: string;
  run(): Promise<void>;
}

/**
 * The conformance cases bound to `options`: each run makes fresh stores, checks one rule and
 * closes the stores again.
 */
export function storeConformanceCases(options: StoreConformanceOptions): BoundConformanceCase[] {
  return [...conformanceCases, ...requestConformanceCases].map((testCase) => ({
    title: testCase.title,
    async run() {
      const context = createConformanceContext(options);
      try {
        await testCase.run(context);
      } finally {
        await context.dispose();
      }
    },
  }));
}

/**
 * Declares the suite with the runner's `describe`/`it` (the globals by default).
 *
 * @example
 * describeStoreConformance('my store', { createStore: (timings) => new MyStore(timings) });
 */
export function describeStoreConformance(
  title: string,
  options: StoreConformanceOptions,
  runner: ConformanceRunner = globalThis as unknown as ConformanceRunner,
): void {
  if (typeof runner.describe !== 'function' || typeof runner.it !== 'function') {
    throw new TypeError(
      'describeStoreConformance needs describe/it: pass your runner, or use runStoreConformance',
    );
  }
  runner.describe(title, () => {
    for (const testCase of storeConformanceCases(options))
      runner.it(testCase.title, () => testCase.run());
  });
}

/** The outcome of `runStoreConformance`. */
export interface ConformanceReport {
  readonly passed: string[];
  readonly failed: { readonly title: string; readonly error: unknown }[];
}

/**
 * Runs every case one after the other without a test runner and reports each outcome.
 *
 * @example
 * const report = await runStoreConformance({ createStore: (t) => new MyStore(t) });
 * if (report.failed.length > 0) process.exitCode = 1;
 */
export async function runStoreConformance(
  options: StoreConformanceOptions,
): Promise<ConformanceReport> {
  const report: ConformanceReport = { passed: [], failed: [] };
  for (const testCase of storeConformanceCases(options)) {
    try {
      await testCase.run();
      report.passed.push(testCase.title);
    } catch (error) {
      report.failed.push({ title: testCase.title, error });
    }
  }
  return report;
}
