// Registration precedence: an explicit store beats the default in either order, the first
// explicit store wins, a losing registration's callback never runs, callbacks never merge.
import { expect } from 'chai';
import express from 'express';
import {
  addIdempotentKey,
  addIdempotentKeyWithStore,
  prepareApp,
  silentLogger,
  type IdempotencyKeyStore,
  type IdempotencyOptions,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';

/** A store that is not the default, recognisable by name. */
class NamedStore extends MemoryIdempotencyStore {
  constructor(
    timings: StoreTimings,
    readonly label = 'class',
  ) {
    super(timings);
  }
}

const TIMINGS: StoreTimings = {
  expirationMs: 1000,
  inFlightReservationTimeoutMs: 1000,
  cachePrefix: 'x',
};

function label(store: IdempotencyKeyStore | undefined): string {
  if (store instanceof NamedStore) return store.label;
  return store instanceof MemoryIdempotencyStore ? 'default' : 'unknown';
}

/** Records which callbacks ran and sets the options they name. */
function callback(name: string, ran: string[], set: Partial<IdempotencyOptions> = {}) {
  return (options: IdempotencyOptions) => {
    ran.push(name);
    Object.assign(options, { logger: silentLogger }, set);
  };
}

describe('idempotency registration', () => {
  it('uses the memory store for the default registration', async () => {
    const app = express();
    addIdempotentKey(app, (o) => (o.logger = silentLogger));
    expect(label((await prepareApp(app))?.store)).to.equal('default');
  });

  it('lets an explicit store registered after the default win, and runs only its callback', async () => {
    const app = express();
    const ran: string[] = [];
    addIdempotentKey(
      app,
      callback('default', ran, { cachePrefix: 'from-default', maxIdempotencyKeyLength: 9 }),
    );
    addIdempotentKeyWithStore(
      app,
      NamedStore,
      callback('explicit', ran, { cachePrefix: 'from-explicit' }),
    );
    const prepared = await prepareApp(app);
    expect(label(prepared?.store)).to.equal('class');
    expect(ran).to.deep.equal(['explicit']);
    expect(prepared?.options.cachePrefix).to.equal('from-explicit');
    // Not merged: the default's other setting is gone too.
    expect(prepared?.options.maxIdempotencyKeyLength).to.equal(255);
  });

  it('makes a default registration after an explicit one a complete no-op', async () => {
    const app = express();
    const ran: string[] = [];
    addIdempotentKeyWithStore(app, NamedStore, callback('explicit', ran));
    addIdempotentKey(app, callback('default', ran, { cachePrefix: 'from-default' }));
    const prepared = await prepareApp(app);
    expect(label(prepared?.store)).to.equal('class');
    expect(ran).to.deep.equal(['explicit']);
    expect(prepared?.options.cachePrefix).to.equal('idem');
  });

  it('keeps the first of two explicit stores and never runs the second callback', async () => {
    const app = express();
    const ran: string[] = [];
    addIdempotentKeyWithStore(app, (t) => new NamedStore(t, 'first'), callback('first', ran));
    addIdempotentKeyWithStore(app, (t) => new NamedStore(t, 'second'), callback('second', ran));
    expect(label((await prepareApp(app))?.store)).to.equal('first');
    expect(ran).to.deep.equal(['first']);
  });

  it('keeps the first of two default registrations', async () => {
    const app = express();
    const ran: string[] = [];
    addIdempotentKey(app, callback('one', ran));
    addIdempotentKey(app, callback('two', ran));
    await prepareApp(app);
    expect(ran).to.deep.equal(['one']);
  });

  it('never builds the store of a losing registration', async () => {
    const app = express();
    let built = 0;
    addIdempotentKeyWithStore(
      app,
      (t) => new NamedStore(t, 'winner'),
      (o) => (o.logger = silentLogger),
    );
    addIdempotentKeyWithStore(app, (t) => {
      built += 1;
      return new NamedStore(t, 'loser');
    });
    await prepareApp(app);
    expect(built).to.equal(0);
  });

  it('accepts a store instance, a class and a factory; classes and factories get the timings', async () => {
    const instance = new NamedStore(TIMINGS, 'instance');
    let timings: StoreTimings | undefined;
    const sources = [
      instance,
      NamedStore,
      (t: StoreTimings) => {
        timings = t;
        return new NamedStore(t, 'factory');
      },
    ];
    const labels: string[] = [];
    for (const source of sources) {
      const app = express();
      addIdempotentKeyWithStore(app, source, (o) => {
        o.logger = silentLogger;
        o.expiration = '2m';
        o.cachePrefix = 'orders';
      });
      labels.push(label((await prepareApp(app))?.store));
    }
    expect(labels).to.deep.equal(['instance', 'class', 'factory']);
    expect(timings).to.deep.equal({
      expirationMs: 120_000,
      inFlightReservationTimeoutMs: 30_000,
      cachePrefix: 'orders',
    });
  });

  it('starts the store before the app serves', async () => {
    const app = express();
    const events: string[] = [];
    addIdempotentKeyWithStore(
      app,
      {
        ...new MemoryIdempotencyStore(TIMINGS),
        isKeyProcessed: () => Promise.reject(new Error('unused')),
        markKeyAsProcessed: () => Promise.resolve(true),
        releaseReservation: () => Promise.resolve(),
        start: async () => void events.push('start'),
      },
      (o) => (o.logger = silentLogger),
    );
    await prepareApp(app);
    await prepareApp(app); // preparing twice starts once
    expect(events).to.deep.equal(['start']);
  });
});
