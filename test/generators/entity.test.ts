// The entity generator: the exact files it writes for the sample Product (snapshots under
// entity-snapshots/, rewritten with UPDATE_SNAPSHOTS=1), re-runs that keep or force files, the
// bypass-argument form, and bad specs that name each mistake and write nothing.
import { expect } from 'chai';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodePlop from 'node-plop';
import prettier from 'prettier';
import { PRETTIER_DEFAULTS } from '../../generators/entity/format.js';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { EntitySpecError } from '../../generators/model/errors.js';

const productSpec = fileURLToPath(new URL('../../docs/examples/product.yaml', import.meta.url));
const snapshots = fileURLToPath(new URL('./entity-snapshots/product/', import.meta.url));
const NOW = '2024-05-01T09:30:00Z';

const productFiles = [
  'admin/src/resources.ts',
  'admin/src/resources/product.tsx',
  'migrations/20240501093000_create_products.ts',
  'seeds/products.ts',
  'src/slices/events.ts',
  'src/slices/products/index.ts',
  'src/slices/products/product.dto.ts',
  'src/slices/products/product.entity.ts',
  'src/slices/products/product.entity.yaml',
  'src/slices/products/product.events.ts',
  'src/slices/products/product.handlers.ts',
  'src/slices/products/product.openapi.ts',
  'src/slices/products/product.requests.ts',
  'src/slices/products/product.routes.ts',
  'src/slices/products/product.table.ts',
  'test/products.test.ts',
];

/** The files under `dir`, the base copies under .slicekit/ left out (base-copies.test.ts). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .filter((path) => !path.startsWith('.slicekit/'))
    .sort();
}

async function generate(dir: string, answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions({ now: NOW, ...answers });
}

async function failure(work: Promise<unknown>): Promise<EntitySpecError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(EntitySpecError);
  return error as EntitySpecError;
}

describe('entity generator', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-entity-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('the sample Product from its spec file', () => {
    let rendered: Map<string, string>;
    before(async () => {
      const out = mkdtempSync(join(tmpdir(), 'slicekit-product-'));
      const result = await generate(out, { specFile: productSpec });
      expect(result.failures).to.deep.equal([]);
      rendered = new Map(filesUnder(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]));
      rmSync(out, { recursive: true, force: true });
    });

    it('writes exactly the slice files', () => {
      expect([...rendered.keys()]).to.deep.equal(productFiles);
    });

    it('saves the spec it used beside the slice', () => {
      expect(rendered.get('src/slices/products/product.entity.yaml')).to.equal(
        readFileSync(productSpec, 'utf8'),
      );
    });

    for (const file of productFiles) {
      it(`renders ${file} as in its snapshot`, () => {
        const actual = rendered.get(file) ?? '';
        const snapshot = join(snapshots, `${file}.snap`);
        if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(snapshot)) {
          mkdirSync(dirname(snapshot), { recursive: true });
          writeFileSync(snapshot, actual);
        }
        expect(actual).to.equal(readFileSync(snapshot, 'utf8'));
      });
    }
  });

  it('keeps existing files and the first migration on a second run, and rewrites them with force', async () => {
    await generate(dir, { specFile: productSpec });
    const entity = join(dir, 'src/slices/products/product.entity.ts');
    writeFileSync(entity, '// edited by hand\n');
    const again = await generate(dir, { specFile: productSpec, now: '2025-01-01T00:00:00Z' });
    expect(again.failures).to.deep.equal([]);
    expect(again.changes.every((c) => c.path.startsWith('[SKIPPED]'))).to.equal(true);
    expect(readFileSync(entity, 'utf8')).to.equal('// edited by hand\n');
    const forced = await generate(dir, {
      specFile: productSpec,
      now: '2025-01-01T00:00:00Z',
      force: true,
    });
    expect(forced.failures).to.deep.equal([]);
    expect(readFileSync(entity, 'utf8')).to.match(/^\/\/ Product: the domain entity/);
    expect(filesUnder(dir)).to.deep.equal(productFiles);
  });

  it('never rewrites an existing create migration, even with force, and says why', async () => {
    await generate(dir, { specFile: productSpec });
    const migration = join(
      dir,
      productFiles.find((f) => f.startsWith('migrations/'))!,
    );
    writeFileSync(migration, '// applied already, edited by hand\n');
    const forced = await generate(dir, {
      specFile: productSpec,
      now: '2025-01-01T00:00:00Z',
      force: true,
    });
    expect(forced.failures).to.deep.equal([]);
    expect(readFileSync(migration, 'utf8')).to.equal('// applied already, edited by hand\n');
    expect(filesUnder(join(dir, 'migrations'))).to.deep.equal([
      '20240501093000_create_products.ts',
    ]);
    const kept = forced.changes.find((c) => c.path.includes('_create_products'));
    expect(kept?.path).to.equal(
      '[SKIPPED] migrations/20240501093000_create_products.ts (kept, even with --force: it may ' +
        'have run already; a schema change needs a new migration in migrations/)',
    );
    // The other files are rewritten.
    expect(readFileSync(join(dir, 'src/slices/products/product.entity.ts'), 'utf8')).to.match(
      /^\/\/ Product: the domain entity/,
    );
  });

  it('expresses the same Product from bypass arguments', async () => {
    const result = await generate(dir, {
      name: 'Product',
      fields:
        'name:string(150)!, price:decimal!:minimum=0.01, isDiscontinued:boolean:default=false',
      create: 'name, price',
      updates: 'ChangePrice(price)',
      actions:
        'Approve(byUser:string!)@approval[updatedBy=byUser], Discontinue():PUT[isDiscontinued=true]',
      dto: '-ownedBy',
      audited: true,
      owned: true,
      events: 'Created(id, name, price), Updated(price), Updated(isDiscontinued)',
    });
    expect(result.failures).to.deep.equal([]);
    for (const file of productFiles.filter((f) => !f.endsWith('.yaml'))) {
      const snapshot = readFileSync(join(snapshots, `${file}.snap`), 'utf8');
      expect(readFileSync(join(dir, file), 'utf8'), file).to.equal(snapshot);
    }
    const saved = readFileSync(join(dir, 'src/slices/products/product.entity.yaml'), 'utf8');
    expect(saved).to.match(/^# Product: the entity spec/);
  });

  it('takes an enum field as a create, update and action parameter, from a spec and from arguments', async () => {
    const spec = join(dir, 'ticket.yaml');
    writeFileSync(
      spec,
      [
        'entity: Ticket',
        'audited: false',
        'fields:',
        '  title: { type: string, required: true }',
        '  kind: { type: enum, values: [bug, feature] }',
        'create: [title, { name: kind, required: true }]',
        'updates:',
        '  - { name: Reclassify, parameters: [kind] }',
        'actions:',
        '  - { name: Triage, parameters: [{ name: kind, required: true }] }',
      ].join('\n'),
    );
    const fromFile = await generate(join(dir, 'file'), { specFile: spec });
    expect(fromFile.failures).to.deep.equal([]);
    const requests = readFileSync(join(dir, 'file/src/slices/tickets/ticket.requests.ts'), 'utf8');
    for (const request of ['CreateTicketRequest', 'ReclassifyTicketRequest', 'TriageTicketRequest'])
      expect(requests).to.contain(request);
    expect(requests.match(/enum: \['bug', 'feature'(, null)?\]/g)).to.have.length(3);

    const fromArguments = await generate(join(dir, 'arguments'), {
      name: 'Ticket',
      fields: 'title:string!, kind:enum(bug|feature)!',
      create: 'title, kind',
      updates: 'Reclassify(kind)',
      actions: 'Triage(kind)',
      audited: false,
    });
    expect(fromArguments.failures).to.deep.equal([]);
    const argumentRequests = readFileSync(
      join(dir, 'arguments/src/slices/tickets/ticket.requests.ts'),
      'utf8',
    );
    expect(argumentRequests.match(/enum: \['bug', 'feature'\]/g)).to.have.length(3);
  });

  it('still checks the constraints a field reference adds against the field', async () => {
    const spec = join(dir, 'bad.yaml');
    writeFileSync(
      spec,
      [
        'entity: Ticket',
        'fields:',
        '  title: { type: string, maxLength: 20 }',
        '  kind: { type: enum, values: [bug, feature] }',
        'create: [{ name: title, minLength: 30 }, { name: kind, minimum: 1 }]',
      ].join('\n'),
    );
    const error = await failure(generate(join(dir, 'app'), { specFile: spec }));
    expect(error.problems.map((p) => `${p.path}: ${p.message}`)).to.deep.equal([
      'create[0].minLength: is above maxLength',
      'create[1].minimum: does not apply to an enum',
    ]);
  });

  it('writes Prettier-stable files and a seed without an unused now for a non-audited entity with many create parameters', async () => {
    const result = await generate(dir, {
      name: 'Supplier',
      fields: [
        'companyName:string(150)!',
        'contactName:string(120)!',
        'contactEmail:string(200)!',
        'phoneNumber:string(40)!',
        'streetAddress:string(200)!',
        'postalCode:string(20)!',
        'city:string(100)!',
        'countryCode:string(2)!',
        'creditLimit:decimal!:minimum=0',
        'paymentTermDays:integer!:minimum=0',
        'isPreferred:boolean!',
        'onboardedOn:date!',
      ].join(', '),
      audited: false,
    });
    expect(result.failures).to.deep.equal([]);
    const files = filesUnder(dir).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('test/suppliers.test.ts');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const options = { ...PRETTIER_DEFAULTS, filepath: join(dir, file) };
      expect(await prettier.check(text, options), `${file} is Prettier-stable`).to.equal(true);
    }
    const seed = readFileSync(join(dir, 'seeds/suppliers.ts'), 'utf8');
    expect(seed).not.to.match(/\bnow\b/);
  });

  it('takes plural, table, resource and validate from bypass arguments', async () => {
    const result = await generate(dir, {
      name: 'Person',
      fields: 'fullName:string!',
      plural: 'People',
      table: 'crm_people',
      resource: 'contacts',
      validate: 'false',
      audited: false,
    });
    expect(result.failures).to.deep.equal([]);
    const slice = join(dir, 'src/slices/people');
    expect(filesUnder(slice)).to.include('person.routes.ts');
    expect(readFileSync(join(dir, 'seeds/people.ts'), 'utf8')).to.match(/^\/\/ Sample people /);
    expect(readFileSync(join(slice, 'person.table.ts'), 'utf8')).to.contain("table: 'crm_people'");
    const routes = readFileSync(join(slice, 'person.routes.ts'), 'utf8');
    expect(routes).to.contain("'/contacts/:id'");
    expect(routes).to.contain('const VALIDATE_REQUESTS = false;');
    expect(filesUnder(join(dir, 'migrations'))[0]).to.match(/^\d{14}_create_crm_people\.ts$/);
    const saved = readFileSync(join(slice, 'person.entity.yaml'), 'utf8');
    expect(saved).to.contain('plural: People\ntable: crm_people\nresource: contacts\n');
    expect(saved).to.contain('validate: false\n');
  });

  it('leaves plural, table, resource and validate to their defaults when not given, and checks them', async () => {
    const result = await generate(dir, {
      name: 'Person',
      fields: 'fullName:string!',
      validate: '',
    });
    expect(result.failures).to.deep.equal([]);
    const saved = readFileSync(join(dir, 'src/slices/people/person.entity.yaml'), 'utf8');
    expect(saved).not.to.match(/^(plural|table|resource|validate):/m);
    expect(readFileSync(join(dir, 'src/slices/people/person.routes.ts'), 'utf8')).to.contain(
      'const VALIDATE_REQUESTS = true;',
    );
    const error = await failure(
      generate(join(dir, 'bad'), {
        name: 'Person',
        fields: 'fullName:string!',
        table: 'Crm-People',
        resource: 'my contacts',
      }),
    );
    expect(error.problems.map((p) => p.path)).to.deep.equal(['table', 'resource']);
    const mixed = await failure(generate(dir, { spec: productSpec, table: 'goods' }));
    expect(mixed.problems[0]!.path).to.equal('--table');
  });

  it('asks for plural, table, resource and validate after the other questions', async () => {
    const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
    registerEntityGenerator(plop);
    const prompts = plop.getGenerator('entity').prompts as { name: string }[];
    // The upgrade's flags come last, never asked.
    expect(prompts.map((p) => p.name).slice(-9)).to.deep.equal([
      'force',
      'plural',
      'table',
      'resource',
      'validate',
      'dry-run',
      'accept-data-loss',
      'base',
      'default-tenant',
    ]);
  });

  it('names the path and the fix of every mistake in a spec file, and writes nothing', async () => {
    const spec = join(dir, 'bad.yaml');
    writeFileSync(
      spec,
      [
        'entity: Product',
        'fields:',
        '  name: { type: strng, maxlength: 10 }',
        '  price: { type: decimal, required: true }',
        'actions:',
        '  - { name: Approve, verb: DELETE }',
      ].join('\n'),
    );
    const out = join(dir, 'app');
    const error = await failure(generate(out, { specFile: spec }));
    expect(error.message).to.contain(`${spec} has 3 problems`);
    expect(error.problems.map((p) => p.path)).to.deep.equal([
      'fields.name.maxlength',
      'fields.name.type',
      'actions[0].verb',
    ]);
    expect(error.problems[0]!.fix).to.contain('did you mean maxLength?');
    expect(error.problems[1]!.fix).to.contain('use one of string, text, email, url, integer');
    expect(error.problems[2]!.fix).to.contain('POST, PUT, PATCH');
    expect(filesUnder(out)).to.deep.equal([]);
  });

  it('checks what the keys mean: references to fields, parameters and routes', async () => {
    const spec = join(dir, 'bad.json');
    writeFileSync(
      spec,
      JSON.stringify({
        entity: 'Product',
        fields: {
          name: { type: 'string', required: true, minimum: 1 },
          price: { type: 'decimal' },
        },
        create: ['prize'],
        actions: [
          { name: 'Approve', parameters: [{ name: 'byUser', type: 'string' }] },
          { name: 'Close', segment: 'approve' },
        ],
        dto: { exclude: ['lastModified'] },
      }),
    );
    const error = await failure(generate(join(dir, 'app'), { specFile: spec }));
    expect(error.problems.map((p) => `${p.path}: ${p.message}`)).to.deep.equal([
      'fields.name.minimum: does not apply to a string',
      'create[0]: "prize" is not a field',
      'create: name is required and has no default, so the constructor must set it',
      'actions[0].parameters: byUser is not a field, so it sets nothing',
      "actions[1].segment: POST /{id}/approve is also actions[0]'s route",
      'dto.exclude[0]: "lastModified" is not a stored field',
    ]);
    expect(filesUnder(join(dir, 'app'))).to.deep.equal([]);
  });

  it('reports YAML syntax errors with their line, and a missing file with what to give', async () => {
    const spec = join(dir, 'broken.yaml');
    writeFileSync(spec, 'entity: Product\nfields:\n  name: { type: string\n');
    const syntax = await failure(generate(dir, { specFile: spec }));
    expect(syntax.problems[0]!.path).to.match(/^line \d+, column \d+$/);
    const missing = await failure(generate(dir, { specFile: join(dir, 'nope.yaml') }));
    expect(missing.problems[0]!.message).to.contain('cannot be read (ENOENT)');
  });

  it('refuses a bad bypass argument with the argument named', async () => {
    const error = await failure(generate(dir, { name: 'Customer', fields: 'email:strng!' }));
    expect(error.problems[0]).to.include({ path: 'fields.email.type' });
    const mixed = await failure(generate(dir, { spec: productSpec, fields: 'a:string' }));
    expect(mixed.problems[0]!.path).to.equal('--fields');
    expect(filesUnder(dir)).to.deep.equal([]);
  });

  it('takes a spec path through the prompts, skipping the questions it answers', async () => {
    const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
    registerEntityGenerator(plop);
    const answers = await plop.getGenerator('entity').runPrompts([productSpec]);
    expect(answers).to.include({ spec: productSpec, name: '', fields: '' });
  });
});
