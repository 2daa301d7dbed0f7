// Reference data on real databases: insert-if-absent by key, through both migration paths.
import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  applyReferenceData,
  defineReferenceData,
  migrateLatest,
  ReferenceDataError,
  type ReferenceDataSet,
} from '@slicekit/runtime/reference-data';
import { describeEachDatabase } from '../../support/services.js';

const currencies = defineReferenceData({
  table: 'currencies',
  key: 'code',
  rows: [
    { code: 'EUR', name: 'Euro' },
    { code: 'USD', name: 'US dollar' },
    { code: 'JPY', name: 'Yen' },
  ],
});

const regions = defineReferenceData({
  table: 'regions',
  key: ['country', 'region'],
  rows: [
    { country: 'FR', region: 'IDF', label: 'Ile-de-France' },
    { country: 'DE', region: 'BY', label: 'Bavaria' },
  ],
});

/** The app's migrations, as a Knex migration source so the test needs no files. */
const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => ['001_reference_tables'],
  getMigrationName: (name) => name,
  getMigration: async () => ({
    async up(knex: Knex) {
      await knex.schema.createTable('currencies', (t) => {
        t.string('code', 3).primary();
        t.string('name', 100).notNullable();
      });
      await knex.schema.createTable('regions', (t) => {
        t.string('country', 2).notNullable();
        t.string('region', 8).notNullable();
        t.string('label', 100).notNullable();
        t.unique(['country', 'region']);
      });
    },
    async down(knex: Knex) {
      await knex.schema.dropTable('regions');
      await knex.schema.dropTable('currencies');
    },
  }),
};

const migrations = { migrationSource, tableName: 'knex_migrations' };

const rowsOf = (knex: Knex, table: string, orderBy: string) =>
  knex(table).select('*').orderBy(orderBy);

describeEachDatabase('reference data', (db) => {
  it('is applied right after the migrations that create its tables', async () => {
    const result = await migrateLatest(db.knex, {
      migrations,
      referenceData: [currencies, regions],
    });
    expect(result.migrations).to.deep.equal(['001_reference_tables']);
    expect(result.referenceData).to.deep.include({ inserted: 5, kept: 0 });
    expect((await rowsOf(db.knex, 'currencies', 'code')).map((r) => r.code)).to.deep.equal([
      'EUR',
      'JPY',
      'USD',
    ]);
  });

  it('adds nothing when migrations and reference data run again (the start-up path after the CLI)', async () => {
    const result = await migrateLatest(db.knex, {
      migrations,
      referenceData: [currencies, regions],
    });
    expect(result.migrations).to.deep.equal([]);
    expect(result.referenceData).to.deep.include({ inserted: 0, kept: 5 });
    expect(await rowsOf(db.knex, 'currencies', 'code')).to.have.length(3);
    expect(await rowsOf(db.knex, 'regions', 'country')).to.have.length(2);
  });

  it("keeps a user's change to a reference row and the user's own rows", async () => {
    await db.knex('currencies').where({ code: 'EUR' }).update({ name: 'Euro (edited)' });
    await db.knex('currencies').insert({ code: 'CHF', name: 'Swiss franc' });
    await db.knex('regions').where({ country: 'DE', region: 'BY' }).update({ label: 'Bayern' });
    const report = await applyReferenceData(db.knex, [currencies, regions]);
    expect(report.inserted).to.equal(0);
    const names = Object.fromEntries(
      (await rowsOf(db.knex, 'currencies', 'code')).map((r) => [r.code, r.name]),
    );
    expect(names).to.deep.equal({
      CHF: 'Swiss franc',
      EUR: 'Euro (edited)',
      JPY: 'Yen',
      USD: 'US dollar',
    });
    const [bavaria] = await db.knex('regions').where({ country: 'DE', region: 'BY' });
    expect(bavaria.label).to.equal('Bayern');
  });

  it('inserts a row newly added to the declaration, and one a user deleted', async () => {
    await db.knex('currencies').where({ code: 'JPY' }).del();
    const grown: ReferenceDataSet = {
      ...currencies,
      rows: [...currencies.rows, { code: 'GBP', name: 'Pound sterling' }],
    };
    const report = await applyReferenceData(db.knex, [grown]);
    expect(report.tables).to.deep.equal([{ table: 'currencies', inserted: 2, kept: 2 }]);
    expect((await rowsOf(db.knex, 'currencies', 'code')).map((r) => r.code)).to.deep.equal([
      'CHF',
      'EUR',
      'GBP',
      'JPY',
      'USD',
    ]);
  });

  it('never duplicates rows when two applications race on a fresh table', async () => {
    await db.knex.schema.createTable('colours', (t) => {
      t.string('code', 10).primary();
      t.string('label', 20);
    });
    const colours = defineReferenceData({
      table: 'colours',
      key: 'code',
      rows: Array.from({ length: 30 }, (_, i) => ({ code: `c${i}`, label: `colour ${i}` })),
    });
    await Promise.all([
      applyReferenceData(db.knex, [colours]),
      applyReferenceData(db.knex, [colours]),
      applyReferenceData(db.knex, [colours]),
    ]);
    const [count] = await db.knex('colours').count({ n: '*' });
    expect(Number(count?.n)).to.equal(30);
  });

  it('says which index is missing when the key is not unique in the table', async function () {
    // MySQL cannot tell: without a unique index its upsert simply inserts.
    if (db.dialect === 'mysql') this.skip();
    await db.knex.schema.createTable('loose', (t) => {
      t.string('code', 10);
    });
    const loose = defineReferenceData({ table: 'loose', key: 'code', rows: [{ code: 'a' }] });
    try {
      await applyReferenceData(db.knex, [loose]);
      expect.fail('applied reference data to a table without a unique key');
    } catch (error) {
      expect(error).to.be.instanceOf(ReferenceDataError);
      expect(error).to.include({ code: 'reference_data_key_not_unique', table: 'loose' });
    }
  });
});

describe('reference data declarations', () => {
  it('refuses rows without their key and repeated keys, listing each', () => {
    try {
      defineReferenceData({
        table: 'currencies',
        key: 'code',
        rows: [{ code: 'EUR' }, { name: 'no code' }, { code: 'EUR' }],
      });
      expect.fail('accepted a broken declaration');
    } catch (error) {
      expect(error).to.be.instanceOf(ReferenceDataError);
      expect(error).to.include({ code: 'reference_data_invalid' });
      expect((error as Error).message).to.match(/rows\[1\] has no code/);
      expect((error as Error).message).to.match(/rows\[2\] repeats the key/);
    }
  });
});
