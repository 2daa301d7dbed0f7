import { expect } from 'chai';
import { describeEachDatabase, useRedis } from '../support/services.js';

describeEachDatabase('service round trip through Knex', (db) => {
  it('starts with an empty database of its own', async () => {
    expect(await db.knex.schema.hasTable('round_trip')).to.equal(false);
  });

  it('writes and reads back a row with Unicode text and a decimal', async () => {
    await db.knex.schema.createTable('round_trip', (table) => {
      table.increments('id');
      table.string('label', 150).notNullable();
      table.decimal('price', 12, 2).notNullable();
    });
    await db.knex('round_trip').insert({ label: 'Crème brûlée ☕', price: '19.99' });
    const rows = await db.knex('round_trip').select('label', 'price');
    expect(rows).to.have.length(1);
    expect(rows[0].label).to.equal('Crème brûlée ☕');
    expect(Number(rows[0].price)).to.equal(19.99);
  });
});

describe('service round trip through the Redis client', () => {
  const redis = useRedis();

  it('sets a key under the suite prefix with a time-to-live and reads it back', async () => {
    const key = `${redis.prefix}greeting`;
    await redis.client.set(key, 'héllo', { PX: 60_000 });
    expect(await redis.client.get(key)).to.equal('héllo');
    const ttl = await redis.client.pTTL(key);
    expect(ttl).to.be.greaterThan(0).and.at.most(60_000);
  });
});
