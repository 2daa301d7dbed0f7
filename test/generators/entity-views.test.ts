// The entity templates' views and partials: every template has a view of its own, partials are
// never written as files, and each partial writes its piece of code from data alone.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import nodePlop, { type NodePlopAPI } from 'node-plop';
import { templateFiles } from '../../generators/entity/actions.js';
import { sliceBase, templateView, viewedTemplates } from '../../generators/entity/views/index.js';
import { registerHelpers } from '../../generators/helpers.js';
import { loadSpecFile } from '../../generators/model/load.js';

const productSpec = fileURLToPath(new URL('../../docs/examples/product.yaml', import.meta.url));

describe('entity views and partials', () => {
  let plop: NodePlopAPI;
  before(async () => {
    plop = await nodePlop(undefined, { destBasePath: process.cwd(), force: false });
    registerHelpers(plop);
  });
  const render = (template: string, data: unknown) => plop.renderString(template, data);

  it('gives every template a view of its own, and names no template that is gone', () => {
    const names = templateFiles().map((t) => t.name);
    expect(names.some((n) => n.startsWith('partials/'))).to.equal(false);
    expect([...names].sort()).to.deep.equal(viewedTemplates());
    const { model } = loadSpecFile(productSpec);
    const base = sliceBase(model);
    const options = { migrationName: '20240501093000_create_products', specText: '' };
    for (const name of names) {
      expect(templateView(name, model, base, options), name).to.include({ folder: 'products' });
    }
  });

  it('writes a column from its Knex builder method and arguments', () => {
    const column = (data: object) => render('{{> entity/column}}', data).trim();
    expect(column({ name: 'price', method: 'decimal', args: [12, 2], notNullable: true })).to.equal(
      "table.decimal('price', 12, 2).notNullable();",
    );
    expect(
      column({
        name: 'kind',
        method: 'enu',
        args: [['a', "b'c"]],
        hasDefault: true,
        defaultTo: 'a',
      }),
    ).to.equal("table.enu('kind', ['a', 'b\\'c']).defaultTo('a');");
    expect(
      column({ name: 'is_on', method: 'boolean', args: [], hasDefault: true, defaultTo: false }),
    ).to.equal("table.boolean('is_on').defaultTo(false);");
    expect(
      column({ name: 'id', method: 'uuid', args: [], primary: true, notNullable: true }),
    ).to.equal("table.uuid('id').primary();");
  });

  it('writes an assignment from a property and a value of each kind', () => {
    const assign = (value: object) =>
      render('{{> entity/assignment}}', { property: 'at', value }).trim();
    expect(assign({ param: 'at', fallback: { date: '2024-01-02T03:04:05Z' } })).to.equal(
      "this.at = at ?? new Date('2024-01-02T03:04:05Z');",
    );
    expect(assign({ param: 'at', fallback: { current: 'at' } })).to.equal(
      'this.at = at ?? this.at;',
    );
    expect(assign({ uuid: true })).to.equal('this.at = randomUUID();');
    expect(assign({ today: true })).to.equal('this.at = new Date().toISOString().slice(0, 10);');
    expect(assign({ value: { a: [1, 'two'] } })).to.equal("this.at = { a: [1, 'two'] };");
    expect(assign({ value: null })).to.equal('this.at = null;');
  });

  it('writes a row of column values, and request properties as a handler passes them', () => {
    const row = render('{{> entity/row}}', [
      { column: 'id', value: { value: 'x' } },
      { column: 'meta', value: { json: true, value: { a: 1 } } },
      { column: 'seat', value: { next: 'nextNumber', sequence: 'seatSequence' } },
      { column: 'created_on', value: { variable: 'now' } },
    ]);
    expect(row).to.equal(
      "{ id: 'x', meta: JSON.stringify({ a: 1 }), seat: await nextNumber(knex, seatSequence), created_on: now },\n",
    );
    const args = render(
      '{{#each args}}{{> entity/argument}}{{#unless @last}}, {{/unless}}{{/each}}',
      {
        args: [
          { name: 'a', required: true },
          { name: 'b', required: false },
          { name: 'c', required: true, date: true },
          { name: 'd', required: false, date: true },
        ],
      },
    );
    expect(args).to.equal(
      'request.a, request.b ?? null, new Date(request.c), request.d ? new Date(request.d) : null',
    );
  });
});
