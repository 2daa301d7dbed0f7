// Sample values of seeds and generated tests: they fit each field's name and entity (a person's
// name on a Member, a product's on a Product), and a generated seed's rows, read back through the
// routes on every database, keep the spec's constraints: email and url shapes, lengths, bounds,
// decimal places, enum values, distinct unique values, and dates consistent with the status.
import { expect } from 'chai';
import type { Express } from 'express';
import { faker } from '@faker-js/faker/locale/en';
import type { Knex } from 'knex';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import request from 'supertest';
import { fieldKinds, type FieldKind } from '@slicekit/runtime/fields';
import { sampleValue } from '../../generators/entity/samples.js';
import { alignDatesWithStatus } from '../../generators/entity/status-dates.js';
import { checkSeedRow } from '../../generators/entity/views/seed-check.js';
import { EntitySpecError } from '../../generators/model/errors.js';
import { loadSpecFile } from '../../generators/model/load.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import { useScratchSlices } from '../support/scratch-slices.js';
import { describeEachDatabase } from '../support/services.js';

const memberSpec = fileURLToPath(new URL('./fixtures/samples/member.yaml', import.meta.url));
const slices = useScratchSlices('entity-samples', [{ specFile: memberSpec }]);

/** A field of `entity` named `name`, as the sample functions take it. */
const field = (name: string, type: FieldKind, constraints: object = {}) => ({
  name: { camel: name, words: name },
  type,
  ...constraints,
});
const rows = (entity: string, f: ReturnType<typeof field>, distinct = false) =>
  Array.from({ length: 5 }, (_, i) => sampleValue(f, i, entity, distinct));

describe('sample values', () => {
  it("give a person's name to a Customer's name and a product's to a Product's", () => {
    const firstNames = new Set(Object.values(faker.definitions.person.first_name ?? {}).flat());
    const products = new Set(faker.definitions.commerce.product_name.product);
    const people = rows('Customer', field('name', 'string', { maxLength: 100 })) as string[];
    const goods = rows('Product', field('name', 'string', { maxLength: 100 })) as string[];
    for (const name of people) expect(firstNames, name).to.include(name.split(' ')[0]);
    for (const name of goods) expect(products, name).to.include(name.split(' ').at(-1));
    for (const name of people) expect(products, name).not.to.include(name.split(' ').at(-1));
  });

  it('give an email and a url their shape, and a quantity a small whole number', () => {
    for (const email of rows('Customer', field('email', 'string', { maxLength: 200 }))) {
      expect(fieldKinds.email.problem(email, {}), String(email)).to.equal(undefined);
    }
    for (const url of rows('Customer', field('website', 'url'))) {
      expect(fieldKinds.url.problem(url, {}), String(url)).to.equal(undefined);
    }
    for (const quantity of rows('OrderLine', field('quantity', 'integer', { minimum: 1 }))) {
      expect(quantity).to.be.a('number').within(1, 10);
      expect(Number.isInteger(quantity)).to.equal(true);
    }
  });

  it('are the same on every run, and distinct per row where they must be', () => {
    const tag = field('name', 'string', { maxLength: 50 });
    expect(rows('Tag', tag, true)).to.deep.equal(rows('Tag', tag, true));
    const codes = rows('Member', field('code', 'string', { minLength: 2, maxLength: 2 }), true);
    expect(new Set(codes.map((c) => String(c).toLowerCase())).size).to.equal(5);
  });
});

describe('samples of a field with a pattern or examples', () => {
  const isbn = field('isbn', 'string', { maxLength: 13, pattern: '^[0-9]{13}$' });
  const book = (isbnField: object) => ({
    entity: 'Book',
    fields: { isbn: { type: 'string', required: true, unique: true, ...isbnField } },
  });

  it('match the pattern within maxLength, the same on every run, distinct for a unique field', () => {
    const values = rows('Book', isbn, true) as string[];
    for (const value of [...values, ...(rows('Book', isbn) as string[])]) {
      expect(value).to.match(/^[0-9]{13}$/);
    }
    expect(new Set(values).size).to.equal(5);
    expect(rows('Book', isbn, true)).to.deep.equal(values);
  });

  it("take the spec's examples first, then draw values none of them repeats", () => {
    const withExamples = { ...isbn, examples: ['9780140449136', '9780261103573'] };
    const values = rows('Book', withExamples, true) as string[];
    expect(values.slice(0, 2)).to.deep.equal(['9780140449136', '9780261103573']);
    expect(new Set(values).size).to.equal(5);
    for (const value of values) expect(value).to.match(/^[0-9]{13}$/);
  });

  it('refuse an example the field would refuse, and a repeated one of a unique field, naming each', () => {
    const spec = book({
      maxLength: 13,
      pattern: '^[0-9]{13}$',
      examples: ['978014044913X', '9780140449136', '9780140449136'],
    });
    let error: unknown;
    try {
      resolveSpec(spec, 'book.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EntitySpecError);
    const problems = (error as EntitySpecError).problems;
    expect(problems.map((p) => p.path)).to.deep.equal([
      'fields.isbn.examples[0]',
      'fields.isbn.examples[2]',
    ]);
    expect(problems[0]!.message).to.contain('not matching the pattern');
    expect(problems[0]!.fix).to.contain('isbn');
  });

  it('are checked, in a seed row, with the request schema: a refused value names its field', () => {
    const model = resolveSpec(book({ maxLength: 13, pattern: '^[0-9]{13}$' }), 'book.yaml');
    expect(() => checkSeedRow(model, new Map([['isbn', '9780140449136']]), 0)).not.to.throw();
    expect(() => checkSeedRow(model, new Map([['isbn', 'X01']]), 2))
      .to.throw(EntitySpecError)
      .with.property('message')
      .that.contains('fields.isbn');
  });
});

describe('dates of a sample row', () => {
  const members = [
    { name: 'status', type: 'enum', values: ['draft', 'placed', 'shipped'], nullable: false },
    { name: 'placedAt', type: 'date-time', nullable: true },
    { name: 'shippedOn', type: 'date', nullable: true },
    { name: 'dueOn', type: 'date', nullable: false },
  ] as const;
  const row = (status: string) =>
    new Map<string, unknown>([
      ['status', status],
      ['placedAt', '2025-03-02T10:00:00.000Z'],
      ['shippedOn', '2024-07-01'],
      ['dueOn', '2024-01-05'],
    ]);

  it('stay empty for the statuses a row has not reached, and leave other dates as drawn', () => {
    const draft = row('draft');
    alignDatesWithStatus(members, draft);
    expect(Object.fromEntries(draft)).to.include({
      placedAt: null,
      shippedOn: null,
      dueOn: '2024-01-05',
    });
    const placed = row('placed');
    alignDatesWithStatus(members, placed);
    expect(placed.get('placedAt')).to.be.a('string');
    expect(placed.get('shippedOn')).to.equal(null);
  });

  it('come in the order of the statuses a row has passed, each in its own form', () => {
    const shipped = row('shipped');
    alignDatesWithStatus(members, shipped);
    expect(Object.fromEntries(shipped)).to.include({
      placedAt: '2024-07-01T09:30:00.000Z',
      shippedOn: '2025-03-02',
    });
  });
});

describeEachDatabase('a generated seed', (db) => {
  let app: Express;
  let seeded: Record<string, unknown>[];
  before(async () => {
    await slices.migrate(db.knex);
    const seeds = (await import(pathToFileURL(join(slices.dir, 'seeds/members.ts')).href)) as {
      seed(knex: Knex): Promise<void>;
    };
    await seeds.seed(db.knex);
    app = await slices.app(db.knex);
    const res = await request(app).get('/v1/members').query({ pageSize: 50 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    seeded = res.body.items;
  });

  it("holds values its own routes accept: each within its field's constraints", () => {
    const { model } = loadSpecFile(memberSpec);
    expect(seeded).to.have.length(5);
    for (const f of model.fields.filter((f) => f.role === 'field')) {
      for (const row of seeded) {
        const value = row[f.name.camel];
        if (value === null && !f.required) continue;
        expect(fieldKinds[f.type].problem(value, f), `${f.name.camel}: ${String(value)}`).to.equal(
          undefined,
        );
      }
    }
  });

  it('gives unique fields a value of their own on every row', () => {
    for (const name of ['email', 'code']) {
      const values = seeded.map((row) => String(row[name]).toLowerCase());
      expect(new Set(values).size, name).to.equal(seeded.length);
    }
  });

  it('dates a row only for the statuses it has reached, in their order', () => {
    const order = ['invited', 'active', 'closed'];
    expect(new Set(seeded.map((row) => row.status)).size).to.be.greaterThan(1);
    for (const row of seeded) {
      const reached = order.indexOf(String(row.status));
      expect(row.activatedOn === null, JSON.stringify(row)).to.equal(reached < 1);
      expect(row.closedOn === null, JSON.stringify(row)).to.equal(reached < 2);
      if (reached === 2) {
        expect(String(row.activatedOn).slice(0, 10) <= String(row.closedOn)).to.equal(true);
      }
    }
  });
});
