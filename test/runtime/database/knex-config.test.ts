// The runtime's Knex settings for a database URL, as a generated app's knexfile uses them: requests'
// statements are bounded, migrations' are not, and SQLite checks foreign keys and waits for locks.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import {
  dialectOf,
  isDatabaseUnavailable,
  knexConfig,
  unboundedStatements,
} from '@slicekit/runtime/database';
import { useDatabase } from '../../support/services.js';

const sleepOf = { postgres: 'select pg_sleep(0.5)', mysql: 'select sleep(0.5)' } as const;

describe('knexConfig', () => {
  it('tells the database from the URL', () => {
    expect(
      ['postgresql://h/db', 'postgres://h/db', 'mysql://h/db', 'data/app.sqlite', ':memory:'].map(
        dialectOf,
      ),
    ).to.deep.equal(['postgres', 'postgres', 'mysql', 'sqlite', 'sqlite']);
  });

  for (const dialect of ['postgres', 'mysql'] as const) {
    describe(`on ${dialect}`, () => {
      const db = useDatabase(dialect);
      let knex: Knex | undefined;
      let unbounded: Knex | undefined;
      before(() => {
        knex = knexFactory(knexConfig(db.url, { timeouts: { statementTimeoutMs: 100 } }));
        unbounded = knexFactory(unboundedStatements(knex)!);
      });
      after(async () => {
        await knex?.destroy();
        await unbounded?.destroy();
      });

      it("ends a request's statement that runs past the timeout, as an unavailable database", async () => {
        const error = await knex!.raw(sleepOf[dialect]).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(isDatabaseUnavailable(error), String(error)).to.equal(true);
        // The pool recovers: the next statement runs.
        await knex!.raw('select 1');
      });

      it('lets a migration statement run past it (unboundedStatements)', async () => {
        await unbounded!.raw(sleepOf[dialect]);
      });

      if (dialect === 'mysql') {
        it('refuses a second statement stacked after the first in one query', async () => {
          const error = await knex!.raw('select 1; select 2').then(
            () => undefined,
            (thrown: unknown) => thrown as { code?: string },
          );
          expect(error?.code).to.equal('ER_PARSE_ERROR');
        });
      }
    });
  }

  describe('on sqlite', () => {
    const db = useDatabase('sqlite');

    it('turns foreign keys on and sets the busy timeout on each connection', async () => {
      const knex = knexFactory(knexConfig(db.url, { timeouts: { busyTimeoutMs: 1234 } }));
      try {
        expect(await knex.raw('pragma foreign_keys')).to.deep.equal([{ foreign_keys: 1 }]);
        expect(await knex.raw('pragma busy_timeout')).to.deep.equal([{ timeout: 1234 }]);
        expect(unboundedStatements(knex)).to.equal(null);
      } finally {
        await knex.destroy();
      }
    });
  });
});
