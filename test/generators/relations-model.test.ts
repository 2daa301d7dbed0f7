// Relations in the entity spec and the app model: references checked against the entities of the
// app (each refusal with its path and fix), several specs generated at once in dependency order,
// and one by one in any order that generates a referenced entity first.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodePlop from 'node-plop';
import { specFiles } from '../../generators/entity/batch.js';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { loadAppModel } from '../../generators/model/app.js';
import { specFromAnswers } from '../../generators/model/compact.js';
import { EntitySpecError } from '../../generators/model/errors.js';
import { loadSpecFile } from '../../generators/model/load.js';
import { dependencyOrder, resolveRelations } from '../../generators/model/relations.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';

const shop = fileURLToPath(new URL('../../docs/examples/shop/', import.meta.url));

async function generate(dir: string, answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions({ now: '2024-05-01T09:30:00Z', ...answers });
}

/** The problems `run` throws as an EntitySpecError, as `path: message`. */
function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(EntitySpecError);
    return (error as EntitySpecError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected an EntitySpecError');
}

const customer: EntitySpec = {
  entity: 'Customer',
  fields: { name: { type: 'string', required: true } },
};
const order = (fields: EntitySpec['fields']): EntitySpec => ({ entity: 'Order', fields });
const checkAll = (...specs: EntitySpec[]) =>
  resolveRelations(
    specs.map((s) => resolveSpec(s, `${s.entity}.yaml`)),
    new Map(specs.map((s) => [s.entity, `${s.entity}.yaml`])),
  );

describe('entity spec: relations', () => {
  it('stores a reference as <name>Id and a many-to-many as an id list in a join table', () => {
    const model = resolveSpec(
      order({
        customer: { type: 'reference', entity: 'Customer', required: true },
        tags: { type: 'reference', entity: 'Tag', many: true },
      }),
      'order.yaml',
    );
    const reference = model.fields.find((f) => f.name.camel === 'customerId')!;
    expect(reference).to.include({ column: 'customer_id', type: 'reference', notNull: true });
    expect(reference.reference).to.include({ entity: 'Customer', onDelete: 'restrict' });
    expect(reference.reference!.inverse.camel).to.equal('orders');
    expect(model.links.map((f) => f.name.camel)).to.deep.equal(['tagIds']);
    expect(model.links[0]!.reference!.joinTable).to.deep.equal({
      table: 'order_tags',
      localKey: 'order_id',
      foreignKey: 'tag_id',
    });
    // Created with both, by default; a create list may name the relation or its id.
    expect(model.create.map((p) => p.name.camel)).to.deep.equal(['customerId', 'tagIds']);
  });

  it('takes reference(Entity) in the one-line form', () => {
    const spec = specFromAnswers({ name: 'Order', fields: 'customer:reference(Customer)!' });
    expect(spec.fields.customer).to.deep.include({
      type: 'reference',
      entity: 'Customer',
      required: true,
    });
  });

  it('refuses setNull on a required reference, and relation keys on other kinds', () => {
    expect(
      problemsOf(() =>
        resolveSpec(
          order({
            customer: {
              type: 'reference',
              entity: 'Customer',
              required: true,
              onDelete: 'setNull',
            },
            note: { type: 'string', entity: 'Customer' },
            tagIds: { type: 'reference', entity: 'Tag', many: true },
          }),
          'order.yaml',
        ),
      ),
    ).to.deep.equal([
      'fields.customer.onDelete: setNull on a required reference: the column cannot hold null',
      'fields.note.entity: does not apply to a string',
      'fields.tagIds: names the id, not the relation',
    ]);
  });

  it('refuses a reference to an entity the app does not have, naming what to generate first', () => {
    let error: EntitySpecError | undefined;
    try {
      checkAll(order({ customer: { type: 'reference', entity: 'Customer' } }));
    } catch (e) {
      error = e as EntitySpecError;
    }
    expect(error!.problems).to.deep.equal([
      {
        path: 'fields.customer.entity',
        message: 'Customer is not an entity of this app yet',
        fix:
          'generate Customer first (npx plop entity -- --spec <Customer spec>), or both at once ' +
          '(npx plop entity -- --spec <folder holding both specs>)',
      },
    ]);
  });

  it('refuses fields to show that the referenced DTO does not have', () => {
    expect(
      problemsOf(() =>
        checkAll(
          customer,
          order({ customer: { type: 'reference', entity: 'Customer', show: ['nmae'] } }),
        ),
      ),
    ).to.deep.equal([`fields.customer.show[0]: "nmae" is not a field of Customer's DTO`]);
  });

  it('refuses a cycle of required references, and any cycle no migration order creates', () => {
    const a: EntitySpec = {
      entity: 'Order',
      fields: { customer: { type: 'reference', entity: 'Customer', required: true } },
    };
    const b: EntitySpec = {
      entity: 'Customer',
      fields: { lastOrder: { type: 'reference', entity: 'Order', required: true } },
    };
    expect(problemsOf(() => checkAll(a, b))).to.deep.equal([
      'Order: fields.customer: a cycle of required references (Order -> Customer -> Order): no row of them could be created first',
      'Customer: fields.lastOrder: a cycle of required references (Customer -> Order -> Customer): no row of them could be created first',
    ]);
    const optional = {
      ...b,
      fields: { lastOrder: { type: 'reference' as const, entity: 'Order' } },
    };
    expect(problemsOf(() => checkAll(a, optional))[0]).to.contain(
      'a cycle of references (Order -> Customer -> Order): no migration order creates their tables',
    );
    // An optional reference to its own entity (a parent row) is no cycle.
    const category: EntitySpec = {
      entity: 'Category',
      plural: 'Categories',
      fields: { parent: { type: 'reference', entity: 'Category', onDelete: 'setNull' } },
    };
    expect(checkAll(category)[0]!.relations!.references).to.have.length(1);
  });

  it('refuses a cascade from a soft-deleting entity to one without softDelete, naming the fix', () => {
    const soft = { ...customer, softDelete: true };
    const cascade = order({
      customer: { type: 'reference', entity: 'Customer', required: true, onDelete: 'cascade' },
    });
    let error: EntitySpecError | undefined;
    try {
      checkAll(soft, cascade);
    } catch (e) {
      error = e as EntitySpecError;
    }
    expect(error!.problems).to.deep.equal([
      {
        path: 'fields.customer.onDelete',
        message:
          'Customer soft-deletes, so its delete would soft-delete the orders referring to it, but Order has no softDelete',
        fix: 'give Order softDelete: true, or use onDelete: restrict or setNull',
      },
    ]);
    expect(checkAll(soft, { ...cascade, softDelete: true })).to.have.length(2);
  });

  it('defers a collection of an entity not generated yet, and checks it once it is', () => {
    const withLines: EntitySpec = {
      ...order({ status: { type: 'string' } }),
      collections: { lines: { entity: 'OrderLine', show: ['sku'] } },
    };
    expect(checkAll(withLines)[0]!.relations!.deferred).to.deep.equal([
      { name: 'lines', entity: 'OrderLine' },
    ]);
    const line: EntitySpec = { entity: 'OrderLine', fields: { sku: { type: 'string' } } };
    expect(problemsOf(() => checkAll(withLines, line))).to.deep.equal([
      'collections.lines: OrderLine has no reference to Order',
    ]);
  });

  it('orders the shop so every referenced entity comes first', () => {
    const models = specFiles(shop).map((file) => loadSpecFile(file).model);
    const names = dependencyOrder(models).map((m) => m.name.pascal);
    expect(names).to.deep.equal(['Customer', 'Tag', 'Order', 'OrderLine']);
  });
});

describe('generating related entities', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-relations-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates every spec of a folder in one run, migrations in dependency order', async () => {
    const result = await generate(dir, { specFile: shop });
    expect(result.failures).to.deep.equal([]);
    expect(readdirSync(join(dir, 'migrations'))).to.deep.equal([
      '20240501093000_create_customers.ts',
      '20240501093001_create_tags.ts',
      '20240501093002_create_orders.ts',
      '20240501093003_create_order_lines.ts',
    ]);
    const app = loadAppModel(dir);
    const orderModel = app.entities.find((e) => e.name.pascal === 'Order')!;
    expect(orderModel.relations!.collections.map((c) => c.name.camel)).to.deep.equal(['lines']);
    expect(orderModel.relations!.deferred).to.deep.equal([]);
  });

  it('generates them one by one when each referenced entity comes first, and refuses otherwise', async () => {
    const spec = (name: string) => join(shop, `${name}.yaml`);
    const refused = await generate(dir, { specFile: spec('order') }).then(
      () => undefined,
      (e: unknown) => e as EntitySpecError,
    );
    expect(refused).to.be.instanceOf(EntitySpecError);
    expect(refused!.problems.map((p) => `${p.path}: ${p.message}`)).to.deep.equal([
      'fields.customer.entity: Customer is not an entity of this app yet',
      'fields.tags.entity: Tag is not an entity of this app yet',
    ]);
    expect(readdirSync(dir)).to.deep.equal([]);
    for (const name of ['tag', 'customer', 'order', 'order-line']) {
      const result = await generate(dir, { specFile: spec(name) });
      expect(result.failures, name).to.deep.equal([]);
    }
    // The same pinned time for each run: each migration still comes after those it needs.
    expect(readdirSync(join(dir, 'migrations'))).to.deep.equal([
      '20240501093000_create_customers.ts',
      '20240501093000_create_tags.ts',
      '20240501093001_create_orders.ts',
      '20240501093002_create_order_lines.ts',
    ]);
    const orderModel = loadAppModel(dir).entities.find((e) => e.name.pascal === 'Order')!;
    expect(orderModel.relations!.collections.map((c) => c.name.camel)).to.deep.equal(['lines']);
  });
});
