// One dataset for the list-query suites: items with every scalar type, JSON columns (an object and
// arrays), a joined category and a child collection of tags, created identically on SQLite, PostgreSQL and MySQL.
import type { Knex } from 'knex';
import { defineListResource, type ListResourceDefinition } from '@slicekit/runtime/list-query';

export const itemDto = {
  type: 'object',
  required: ['id', 'name', 'price', 'quantity', 'isActive', 'status', 'createdOn', 'tags'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    code: { type: ['string', 'null'] },
    price: { type: 'number' },
    quantity: { type: 'integer' },
    isActive: { type: 'boolean' },
    status: { type: 'string', enum: ['draft', 'active', 'archived'] },
    createdOn: { type: 'string', format: 'date-time' },
    releaseDate: { type: ['string', 'null'], format: 'date' },
    meta: {
      type: ['object', 'null'],
      properties: { label: { type: 'string' }, weight: { type: 'number' } },
    },
    category: {
      type: ['object', 'null'],
      properties: { id: { type: 'integer' }, title: { type: 'string' } },
    },
    tags: { type: 'array', items: { type: 'string' } },
    labels: { type: ['array', 'null'], items: { type: 'string' } },
    parts: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
    },
    attributes: { type: 'object', additionalProperties: { type: 'string' } },
    secret: { type: 'string' },
  },
} as const;

export const itemsDefinition: ListResourceDefinition = {
  table: 'lq_items',
  dto: itemDto,
  audited: true,
  columns: {
    meta: { json: 'meta' },
    category: { relation: { table: 'lq_categories', localColumn: 'category_id' } },
    tags: { collection: { table: 'lq_tags', foreignKey: 'item_id', column: 'value' } },
    attributes: { json: 'attributes' },
    secret: { computed: true },
  },
};

export const items = defineListResource(itemsDefinition);

/** A small deterministic PRNG, so every database gets the same rows. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const NAMES = [
  'École',
  'école',
  'ECOLE',
  'ecole',
  'Ärger',
  'ärger',
  'Zebra',
  'apple',
  'Apple',
  'banana',
  '100% pure',
  '100 percent',
  'snake_case',
  'snakeXcase',
  'bang!',
  'a!b',
  'Ωmega',
  'ωmega',
  'Straße',
  'naïve',
  'NAÏVE',
  'trailing ',
  'trailing',
  "O'Reilly",
  'x;drop',
  'café',
  'CAFÉ',
];
const STATUSES = ['draft', 'active', 'archived'];
const LABELS = ['Straße', 'STRASSE', 'Rouge', 'Ünïcode', 'ÉTÉ', 'plain'];
const TITLES = ['Tools', 'Électronique', 'garden_stuff', 'Books 50%'];
const TAGS = ['red', 'Rouge', 'ÉTÉ', 'été', 'blue', '50%off', 'under_score'];

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export async function createDataset(knex: Knex, count = 60): Promise<void> {
  await knex.schema.createTable('lq_categories', (t) => {
    t.integer('id').primary();
    t.string('title', 100);
  });
  await knex.schema.createTable('lq_items', (t) => {
    t.string('id', 36).primary();
    t.string('name', 150).notNullable();
    t.string('code', 50).nullable();
    t.decimal('price', 12, 2).notNullable();
    t.integer('quantity').notNullable();
    t.boolean('is_active').notNullable();
    t.string('status', 20).notNullable();
    t.datetime('created_on', { precision: 3 }).notNullable();
    t.date('release_date').nullable();
    t.json('meta').nullable();
    t.integer('category_id').nullable();
    t.json('labels').nullable();
    t.json('parts').nullable();
    t.json('attributes').nullable();
  });
  await knex.schema.createTable('lq_tags', (t) => {
    t.increments('tag_id');
    t.string('item_id', 36).notNullable().index();
    t.string('value', 50);
  });
  await knex('lq_categories').insert(TITLES.map((title, i) => ({ id: i + 1, title })));
  const random = prng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const rows = [];
  const tags = [];
  const base = Date.UTC(2024, 4, 1, 0, 0, 0);
  for (let n = 1; n <= count; n++) {
    const name = n <= NAMES.length ? NAMES[n - 1]! : `${pick(NAMES)} ${n}`;
    rows.push({
      id: id(n),
      name,
      code: random() < 0.25 ? null : `C-${pick(['ab', 'AB', 'é', '%', '_'])}${n % 7}`,
      price: (Math.floor(random() * 10000) / 100).toFixed(2),
      quantity: Math.floor(random() * 50) - 5,
      is_active: random() < 0.6,
      status: pick(STATUSES),
      // Several rows share a timestamp so the id tie-breaker decides their order.
      created_on: new Date(base + Math.floor(random() * 6) * 43_200_000 + (n % 3) * 1000),
      release_date:
        random() < 0.2
          ? null
          : `2024-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}`,
      meta: random() < 0.3 ? null : JSON.stringify({ label: pick(NAMES), weight: n }),
      category_id: random() < 0.2 ? null : 1 + Math.floor(random() * TITLES.length),
      labels: n % 5 === 0 ? null : JSON.stringify(n % 4 === 0 ? [] : [pick(LABELS), pick(LABELS)]),
      parts: JSON.stringify(
        n % 3 === 0 ? [] : [{ sku: `SKU-${pick(TAGS)}`, qty: n % 4 }, 'loose', { qty: 1 }],
      ),
      attributes: JSON.stringify({ colour: pick(TAGS) }),
    });
    const tagCount = Math.floor(random() * 3);
    for (let t = 0; t < tagCount; t++) tags.push({ item_id: id(n), value: pick(TAGS) });
  }
  await knex('lq_items').insert(rows);
  if (tags.length) await knex('lq_tags').insert(tags);
}

/** Every row of every table, for "the table is unchanged" checks. */
export async function snapshot(knex: Knex): Promise<unknown[]> {
  return Promise.all([
    knex('lq_items').orderBy('id'),
    knex('lq_tags').orderBy('tag_id'),
    knex('lq_categories').orderBy('id'),
  ]);
}
