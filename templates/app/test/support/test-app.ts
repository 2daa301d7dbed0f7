// Gives a test file its own throwaway database, migrated, and the app built on it (not listening).
// The database is a temporary SQLite file, or a fresh database on the server DATABASE_URL names.
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { SignJWT } from 'jose';
import type { Knex } from 'knex';
import { closeIdempotency } from '@slicekit/runtime/idempotency';
import { createApp } from '../../src/app.js';
import { databaseUrl } from '../../src/config.js';
import { createThrowawayDatabase, dropThrowawayDatabase } from '../../src/database-admin.js';
import { createKnex, migrate } from '../../src/db.js';
import { createLogger } from '../../src/logger.js';

// Test apps verify bearer tokens signed with this secret, so tests can act as several callers.
const TEST_JWT_SECRET = 'test-secret-of-at-least-thirty-two-bytes!';

/** The auth options of test apps: tokens signed by `bearer` verify. */
export const testAuth = { jwtSecret: TEST_JWT_SECRET };

/**
 * An `Authorization` header value for the caller `userId`, with the further `claims` given (such
 * as `{ roles: ['admin'] }`), e.g.
 * `request(app).get('/v1/products').set('authorization', await bearer('alice'))`.
 */
export async function bearer(
  userId: string,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
  return `Bearer ${token}`;
}

export interface TestApp {
  /** The Express app, ready for `request(app)`. */
  readonly app: Express;
  /** Knex on the test database, to arrange rows or check what a request stored. */
  readonly knex: Knex;
}

/** Creates and migrates a throwaway database and builds the app on it; `close()` drops it. */
export async function createTestApp(): Promise<TestApp & { close(): Promise<void> }> {
  const suffix = `test_${randomBytes(4).toString('hex')}`;
  const url = await createThrowawayDatabase(databaseUrl, suffix);
  const knex = createKnex(url);
  const logger = createLogger('silent');
  try {
    await migrate(knex, logger);
    const app = await createApp({ knex, logger, auth: testAuth });
    return {
      app,
      knex,
      async close() {
        await closeIdempotency(app);
        await knex.destroy();
        await dropThrowawayDatabase(url);
      },
    };
  } catch (error) {
    await knex.destroy();
    await dropThrowawayDatabase(url);
    throw error;
  }
}

/**
 * Registers mocha hooks giving the enclosing `describe` its own app and database. Read the members
 * inside tests or hooks, not while the suite is declared.
 *
 * @example
 * describe('products', () => {
 *   const test = useTestApp();
 *   it('lists nothing yet', () => request(test.app).get('/v1/products').expect(200));
 * });
 */
export function useTestApp(): TestApp {
  let current: Awaited<ReturnType<typeof createTestApp>> | undefined;
  before(async () => {
    current = await createTestApp();
  });
  after(async () => {
    await current?.close();
    current = undefined;
  });
  const get = (): TestApp => {
    if (!current) throw new Error('the test app is not ready yet: use it inside a test or hook');
    return current;
  };
  return {
    get app() {
      return get().app;
    },
    get knex() {
      return get().knex;
    },
  };
}
