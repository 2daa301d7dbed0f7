// Which database a Knex instance talks to: one answer for every area, one error for the rest.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { sqlFamily, UnsupportedDatabaseError } from '@slicekit/runtime/internal';
import { allDialects, useDatabase } from '../../support/services.js';

const fake = (dialect: string, driverName: string) =>
  ({ client: { dialect, driverName } }) as unknown as Knex;

describe('sqlFamily', () => {
  for (const dialect of allDialects) {
    describe(`on ${dialect}`, () => {
      const db = useDatabase(dialect);
      it('names the database of an instance, a transaction and a query builder alike', async () => {
        expect(sqlFamily(db.knex)).to.equal(dialect);
        expect(sqlFamily(db.knex('anything'))).to.equal(dialect);
        await db.knex.transaction(async (trx) => {
          expect(sqlFamily(trx)).to.equal(dialect);
        });
      });
    });
  }

  it('refuses the node sqlite3 driver and other databases with sql.unsupported_database', () => {
    for (const [dialect, driver] of [
      ['sqlite3', 'sqlite3'],
      ['mssql', 'mssql'],
      ['oracledb', 'oracledb'],
    ] as const) {
      expect(() => sqlFamily(fake(dialect, driver)))
        .to.throw(UnsupportedDatabaseError)
        .with.property('code', 'sql.unsupported_database');
    }
  });
});
