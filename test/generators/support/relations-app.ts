// The shop example (docs/examples/shop/) and two entities of the tests beside it (an owned
// Supplier, a Shipment with optional references), generated once into a scratch app inside the
// checkout, then migrated and served in process on each database by the relations tests.
import { expect } from 'chai';
import express, { type Express } from 'express';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import nodePlop from 'node-plop';
import request from 'supertest';
import { discoverSlices } from '@slicekit/runtime/crud';
import { outboxMigration } from '@slicekit/runtime/events';
import { registerEntityGenerator } from '../../../generators/entity/index.js';
import { uniqueName, type DatabaseHandle } from '../../support/services.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const shopSpecs = join(root, 'docs/examples/shop');
export const fixtureSpecs = join(root, 'test/generators/fixtures/relations');

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

const silent = { info() {}, warn() {}, error() {}, debug() {} };

/** A scratch app with the shop and the fixtures generated in it; `remove()` deletes it. */
export async function generateRelationsApp(): Promise<{ dir: string; remove(): void }> {
  // Inside the checkout, so the slices resolve @slicekit/runtime and express from its node_modules.
  const dir = join(root, '.work', uniqueName('relations'));
  mkdirSync(dir, { recursive: true });
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  const entity = plop.getGenerator('entity');
  for (const [specFile, now] of [
    [shopSpecs, '2024-05-01T09:30:00Z'],
    [fixtureSpecs, '2024-05-01T09:40:00Z'],
  ] as const) {
    const result = await entity.runActions({ specFile, now });
    expect(result.failures).to.deep.equal([]);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The app's migrations, in the order Knex runs them (by file name). */
export async function migrationsOf(dir: string): Promise<Migration[]> {
  const folder = join(dir, 'migrations');
  return Promise.all(
    readdirSync(folder)
      .sort()
      .map(async (file) => (await import(pathToFileURL(join(folder, file)).href)) as Migration),
  );
}

/** The app's slices mounted at /v1; `x-user` names the caller (as a bearer token would). */
export async function serveRelationsApp(dir: string, knex: Knex): Promise<Express> {
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    const user = req.header('x-user');
    if (user) req.user = { id: user };
    next();
  });
  const router = express.Router();
  for (const slice of await discoverSlices(join(dir, 'src/slices'))) {
    slice.mount(router, { knex, logger: silent });
  }
  app.use('/v1', router);
  return app;
}

/** Migrates the database of `db` (SQLite with foreign keys on, as a generated app has them). */
export async function migrateRelationsApp(dir: string, db: DatabaseHandle): Promise<void> {
  if (db.dialect === 'sqlite') await db.knex.raw('PRAGMA foreign_keys = ON');
  await outboxMigration().up(db.knex);
  for (const migration of await migrationsOf(dir)) await migration.up(db.knex);
}

/** What a scenario needs: the app and the database, read inside tests. */
export interface RelationsContext {
  readonly app: Express;
  readonly db: DatabaseHandle;
}

/** `request(app)`, acting as `user` when given. */
export function client(context: RelationsContext, user?: string) {
  const api = request(context.app);
  const as = <T extends { set(name: string, value: string): T }>(test: T) =>
    user ? test.set('x-user', user) : test;
  return {
    get: (path: string) => as(api.get(path)),
    post: (path: string, body: object = {}) => as(api.post(path)).send(body),
    put: (path: string, body: object = {}) => as(api.put(path)).send(body),
    delete: (path: string) => as(api.delete(path)),
  };
}
