// Start-up: one memory-store warning per start, silence with any other store, and startApp
// listening only after validation passed.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  addIdempotentKey,
  addIdempotentKeyWithStore,
  closeIdempotency,
  MEMORY_STORE_WARNING,
  OptionsValidationError,
  prepareApp,
  requiredIdempotentKey,
  startApp,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { recordingLogger } from './support/app.js';

class OwnStore extends MemoryIdempotencyStore {
  constructor(timings: StoreTimings) {
    super(timings);
  }
}

const warnings = (logger: ReturnType<typeof recordingLogger>) =>
  logger.entries.filter((e) => e.level === 'warn');

describe('idempotency guard start-up', () => {
  it('logs one warning per start while the memory store is in use', async () => {
    const app = express();
    const logger = recordingLogger();
    addIdempotentKey(app, (o) => (o.logger = logger));
    await prepareApp(app);
    await prepareApp(app);
    expect(warnings(logger)).to.have.length(1);
    expect(warnings(logger)[0]!.msg).to.equal(MEMORY_STORE_WARNING);
    expect(MEMORY_STORE_WARNING)
      .to.match(/process memory/)
      .and.match(/lost on restart/)
      .and.match(/not shared/);
    // A new start (after closing) warns again.
    await closeIdempotency(app);
    await prepareApp(app);
    expect(warnings(logger)).to.have.length(2);
  });

  it('stays silent with any other store', async () => {
    const app = express();
    const logger = recordingLogger();
    addIdempotentKey(app, (o) => (o.logger = logger));
    addIdempotentKeyWithStore(app, OwnStore, (o) => (o.logger = logger));
    await prepareApp(app);
    expect(logger.entries.filter((e) => e.level === 'warn')).to.have.length(0);
  });

  it('startApp validates, then listens; closing the server closes the store', async () => {
    const app = express();
    let closed = 0;
    class ClosingStore extends OwnStore {
      override close() {
        closed += 1;
        return super.close();
      }
    }
    addIdempotentKeyWithStore(app, ClosingStore, (o) => (o.logger = recordingLogger()));
    app.post('/x', requiredIdempotentKey(), (_req, res) => void res.status(201).json({ ok: true }));
    const server = await startApp(app, { port: 0, host: '127.0.0.1' });
    await request(server).post('/x').set('X-Idempotency-Key', 'k').expect(201);
    await request(server).post('/x').set('X-Idempotency-Key', 'k').expect(409);
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).to.equal(1);
  });

  it('startApp never listens with invalid options', async () => {
    const app = express();
    let listened = 0;
    const listen = app.listen.bind(app);
    app.listen = ((...args: Parameters<typeof listen>) => {
      listened += 1;
      return listen(...args);
    }) as typeof app.listen;
    addIdempotentKey(app, (o) => {
      o.logger = recordingLogger();
      o.expiration = 0;
      o.cachePrefix = ' ';
    });
    const error = await startApp(app, { port: 0, host: '127.0.0.1' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(OptionsValidationError);
    expect((error as OptionsValidationError).failures).to.have.length(2);
    expect(listened).to.equal(0);
  });
});
