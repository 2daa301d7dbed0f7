import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

// Runs the Redis round trip in a child mocha with REDIS_URL on a closed port.
function runRedisSuiteAgainstClosedPort(env: Record<string, string>) {
  const result = spawnSync(
    process.execPath,
    [
      'node_modules/mocha/bin/mocha.js',
      '--no-config',
      ...['--node-option', 'import=tsx', '--reporter', './test/support/reporter.cjs'],
      ...['--grep', 'Redis client', 'test/services/round-trip.test.ts'],
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', REQUIRE_SERVICES: '', ...env },
      timeout: 60_000,
    },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe('real-service harness', () => {
  it('skips with one loud line naming the server and URL when a server does not answer', () => {
    const { status, output } = runRedisSuiteAgainstClosedPort({});
    expect(status).to.equal(0);
    expect(output).to.match(
      /SKIPPING Redis SUITES: Redis at redis:\/\/127\.0\.0\.1:1 did not answer/,
    );
    expect(output).to.contain('tests: 0 passed, 0 failed, 1 skipped');
  });

  it('fails instead of skipping under REQUIRE_SERVICES=1', () => {
    const { status, output } = runRedisSuiteAgainstClosedPort({ REQUIRE_SERVICES: '1' });
    expect(status).to.not.equal(0);
    expect(output).to.contain('REQUIRE_SERVICES=1 makes this a failure');
  });
});
