// The app model: the entity generator loads every saved spec of the app, checks a new entity
// against them, and writes app-wide files (the events index) from the specs, not from the code.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { loadAppModel } from '../../generators/model/app.js';
import { EntitySpecError } from '../../generators/model/errors.js';

const productSpec = fileURLToPath(new URL('../../docs/examples/product.yaml', import.meta.url));

async function generate(dir: string, answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions({ now: '2024-05-01T09:30:00Z', ...answers });
}

const customer = {
  name: 'Customer',
  fields: 'email:string(200)!, displayName:string',
  events: 'Created(email)',
};

describe('the app model', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-app-model-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads every saved entity spec of the app', async () => {
    expect(loadAppModel(dir).entities).to.deep.equal([]);
    await generate(dir, { specFile: productSpec });
    await generate(dir, customer);
    const names = loadAppModel(dir).entities.map((e) => e.name.pascal);
    expect(names).to.deep.equal(['Customer', 'Product']);
  });

  it('writes the events index from the specs of every slice, whatever the events files hold', async () => {
    await generate(dir, { specFile: productSpec });
    // A slice's events file is the user's: the index does not read it back.
    unlinkSync(join(dir, 'src/slices/products/product.events.ts'));
    await generate(dir, customer);
    const index = readFileSync(join(dir, 'src/slices/events.ts'), 'utf8');
    expect(index).to.contain(
      "import type { CustomerEvents } from './customers/customer.events.js';",
    );
    expect(index).to.contain("import type { ProductEvents } from './products/product.events.js';");
    expect(index).to.contain('export type AppEvents = CustomerEvents & ProductEvents;');
  });

  it('refuses an entity whose table or URL segment another entity has, and writes nothing', async () => {
    await generate(dir, { specFile: productSpec });
    const error = await generate(dir, {
      ...customer,
      table: 'products',
      resource: 'products',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(EntitySpecError);
    const problems = (error as EntitySpecError).problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).to.deep.equal([
      'table: table "products" is already Product\'s (src/slices/products)',
      'resource: URL segment "products" is already Product\'s (src/slices/products)',
    ]);
    expect(loadAppModel(dir).entities.map((e) => e.name.pascal)).to.deep.equal(['Product']);
  });

  it('regenerates an entity from its own saved spec without calling it a clash', async () => {
    await generate(dir, { specFile: productSpec });
    const result = await generate(dir, {
      specFile: join(dir, 'src/slices/products/product.entity.yaml'),
      force: true,
    });
    expect(result.failures).to.deep.equal([]);
  });

  it('names the saved spec that no longer resolves', async () => {
    await generate(dir, { specFile: productSpec });
    const saved = join(dir, 'src/slices/products/product.entity.yaml');
    writeFileSync(saved, readFileSync(saved, 'utf8').replace('type: decimal', 'type: money'));
    const error = await generate(dir, customer).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(EntitySpecError);
    expect((error as Error).message).to.contain('product.entity.yaml');
  });
});
