// The entity generator's prompts and its mistakes: each answer is checked as it is typed (a wrong
// type refused at the fields prompt with the list of types, misspelled values with a "did you
// mean"), a broken spec is reported in one round in the project's words, and a run that has to
// keep every file of a slice says so and exits non-zero, through node-plop and through plop's CLI.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIELD_KINDS } from '@slicekit/runtime/fields';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { EntitySpecError } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import { entitySpecSchema } from '../../generators/model/schema.js';
import { productSpec } from '../../scripts/generate.js';
import { appEnv, repoRoot, scratchFolder } from '../e2e/support/workspace.js';

type Validate = (value: unknown, answers?: Record<string, unknown>) => true | string;

async function entityGenerator(dir: string) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity');
}

/** The `validate` of prompt `name`, as inquirer calls it, in the app at `dir`. */
async function validator(name: string, dir = repoRoot): Promise<Validate> {
  const generator = await entityGenerator(dir);
  const prompt = (generator.prompts as { name: string; validate?: Validate }[]).find(
    (p) => p.name === name,
  );
  expect(prompt?.validate, `the ${name} prompt has a validate`).to.be.a('function');
  return prompt!.validate!;
}

/** `npx plop entity -- <args>` in `app`, from this checkout's sources. */
function plopEntity(app: string, ...args: string[]) {
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules/plop/bin/plop.js'), 'entity', '--', ...args],
    {
      cwd: app,
      env: appEnv({ NODE_OPTIONS: '--conditions=slicekit-source --import tsx' }),
      encoding: 'utf8',
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * `npx plop entity` in `app`, answering its prompts as a user types: each answer is sent once the
 * text before it (a prompt, or the message refusing the previous answer) has been printed.
 */
function typeAnswers(
  app: string,
  steps: readonly [after: string, answer: string][],
): Promise<{ status: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'node_modules/plop/bin/plop.js'), 'entity'],
      {
        cwd: app,
        env: appEnv({ NODE_OPTIONS: '--conditions=slicekit-source --import tsx' }),
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let seen = 0;
    let next = 0;
    const read = (chunk: Buffer) => {
      // eslint-disable-next-line no-control-regex
      output += chunk.toString('utf8').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      // inquirer wraps long messages: match across line ends.
      const text = output.replace(/\s+/g, ' ');
      while (next < steps.length) {
        const [after, answer] = steps[next]!;
        const at = text.indexOf(after, seen);
        if (at < 0) break;
        seen = at + after.length;
        next++;
        // A refused answer stays on its line to be edited: Ctrl-U clears it first.
        child.stdin.write(`\x15${answer}\n`);
      }
      if (next === steps.length) child.stdin.end();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    // Never left waiting for an answer the test does not give.
    const timer = setTimeout(() => child.kill(), 45_000);
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, output });
    });
  });
}

// A spec with three mistakes of three kinds: a misspelled key, a value not allowed, and a name
// that is not a field (found by the checks of meaning, reported in the same round).
const threeMistakes = [
  'entity: Product',
  'fields:',
  '  name: { type: string, required: true, maxlenght: 150 }',
  '  price: { type: decimal }',
  'create: [name, prize]',
  'actions:',
  '  - { name: Approve, verb: GET }',
].join('\n');

describe('entity prompts', () => {
  const customer = { name: 'Customer', fields: 'email:string!, price:decimal' };

  it('refuses a wrong type at the fields prompt, listing the types', async () => {
    const fields = await validator('fields');
    const refused = fields('email:strng!, age:integer', { name: 'Customer' });
    expect(refused).to.be.a('string');
    expect(refused).to.contain('fields.email.type: "strng" is not allowed');
    for (const kind of FIELD_KINDS) expect(refused).to.contain(kind);
    const unknown = fields('email:colour', { name: 'Customer' });
    expect(unknown).to.contain(`use one of ${FIELD_KINDS.join(', ')}`);
    expect(fields('email:string!, age:integer', { name: 'Customer' })).to.equal(true);
  });

  it('answers a misspelled type, enum value, name or operation with "did you mean"', async () => {
    expect((await validator('fields'))('email:strng!', { name: 'Customer' })).to.contain(
      'did you mean string?',
    );
    expect(
      (await validator('fields'))('status:enum(draft|live):default=drafft', { name: 'Order' }),
    ).to.contain('did you mean draft?');
    expect((await validator('create'))('email, prize', customer)).to.contain(
      'create[1]: "prize" is not a field. Fix: did you mean price?',
    );
    expect((await validator('updates'))('ChangePrice(prise)', customer)).to.contain(
      'did you mean price?',
    );
    expect((await validator('actions'))('Approve():PTCH', customer)).to.contain(
      'did you mean PATCH?',
    );
    const order = { name: 'Order', fields: 'status:enum(draft|placed)' };
    expect((await validator('actions'))('Place()[stauts=placed]', order)).to.contain(
      'did you mean status?',
    );
    expect((await validator('actions'))('Place()[status=plaeced]', order)).to.contain(
      'did you mean placed?',
    );
    expect((await validator('dto'))('-emial', customer)).to.contain('did you mean email?');
    expect((await validator('events'))('Craeted(id, email)', customer)).to.contain(
      'did you mean Created?',
    );
    expect((await validator('events'))('Created(id, emial)', customer)).to.contain(
      'did you mean email?',
    );
    expect((await validator('idempotent'))('Craete', customer)).to.contain('did you mean Create?');
  });

  it('checks an answer against the answers before it, not those still to come', async () => {
    // No fields yet at the name prompt: that is the next prompt's business.
    expect((await validator('name'))('Customer', {})).to.equal(true);
    expect((await validator('name'))('customer', {})).to.contain('PascalCase');
    // The DTO is asked before the owner question, so it may name ownedBy.
    expect((await validator('dto'))('-ownedBy', customer)).to.equal(true);
    expect((await validator('idempotent'))('Create, Update', customer)).to.contain(
      'names Update, but the entity has no updates',
    );
    expect(
      (await validator('idempotent'))('Create, Update', { ...customer, updates: 'Rename(email)' }),
    ).to.equal(true);
  });

  it('checks a reference at the fields prompt against the entities of the app', async () => {
    const scratch = scratchFolder('reference-prompt');
    try {
      const generator = await entityGenerator(scratch.path);
      const { failures } = await generator.runActions({
        name: 'Customer',
        fields: 'email:string!',
      });
      expect(failures).to.deep.equal([]);
      const fields = await validator('fields', scratch.path);
      expect(fields('customer:reference(Custmer)!', { name: 'Order' }))
        .to.contain('fields.customer.entity: Custmer is not an entity of this app yet')
        .and.to.contain('did you mean Customer?');
      expect(fields('customer:reference(Customer)!', { name: 'Order' })).to.equal(true);
      // A slice of the app with a broken saved spec is the run's to report: no answer is refused
      // for it.
      writeFileSync(
        join(scratch.path, 'src/slices/customers/customer.entity.yaml'),
        'entity: Customer\nfields:\n  email: { type: strng }\n',
      );
      expect(fields('total:decimal', { name: 'Invoice' })).to.equal(true);
    } finally {
      scratch.remove();
    }
  });

  it('refuses a spec file at the spec prompt with all its problems, and takes a sound one', async () => {
    const scratch = scratchFolder('spec-prompt');
    try {
      const bad = join(scratch.path, 'bad.yaml');
      writeFileSync(bad, threeMistakes);
      const spec = await validator('spec');
      const refused = spec(bad);
      expect(refused).to.contain('has 3 problems');
      expect(spec(join(scratch.path, 'missing.yaml'))).to.contain('does not exist');
      expect(spec(productSpec)).to.equal(true);
      expect(spec('')).to.equal(true);
    } finally {
      scratch.remove();
    }
  });
});

/** The ajv keywords the spec schema uses. */
function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => keywordsOf(s, found));
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties') Object.values(value).forEach((s) => keywordsOf(s, found));
      else if (key !== 'fix') {
        found.add(key);
        keywordsOf(value, found);
      }
    }
  }
  return found;
}

describe('spec problems, in the words of the project', () => {
  const base = { entity: 'Order', fields: { status: { type: 'enum', values: ['draft', 'live'] } } };
  const withField = (field: object) => ({ ...base, fields: { ...base.fields, x: field } });
  // One spec per ajv keyword of the schema, and the path its problem names.
  const mistakes: Record<string, [spec: object, path: string]> = {
    additionalProperties: [{ ...base, colour: 'red' }, 'colour'],
    required: [withField({ maxLength: 3 }), 'fields.x.type'],
    type: [{ ...base, audited: 'yes' }, 'audited'],
    enum: [withField({ type: 'strng' }), 'fields.x.type'],
    const: [
      { ...base, actions: [{ name: 'Place', effects: [{ set: 'status', now: false }] }] },
      'actions[0].effects[0].now',
    ],
    pattern: [{ ...base, table: 'Bad-Name' }, 'table'],
    minimum: [withField({ type: 'string', maxLength: 0 }), 'fields.x.maxLength'],
    maximum: [withField({ type: 'decimal', precision: 16 }), 'fields.x.precision'],
    minLength: [
      withField({ type: 'string', sequence: { format: '' } }),
      'fields.x.sequence.format',
    ],
    minItems: [withField({ type: 'enum', values: [] }), 'fields.x.values'],
    uniqueItems: [{ ...base, idempotent: ['Create', 'Create'] }, 'idempotent'],
    minProperties: [{ ...base, fields: {} }, 'fields'],
    propertyNames: [{ ...base, fields: { 'Bad Name': { type: 'string' } } }, 'fields'],
    oneOf: [{ ...base, create: [3] }, 'create[0]'],
    anyOf: [
      { ...base, actions: [{ name: 'Place', when: { status: { a: 1 } } }] },
      'actions[0].when.status',
    ],
  };
  // Keywords that never report a problem of their own.
  const structural = ['properties', 'items', 'additionalItems', 'default', 'description'];

  it('has a mistake below for every keyword the schema uses', () => {
    const used = [...keywordsOf(entitySpecSchema)].filter((k) => !structural.includes(k));
    expect(used.filter((k) => !(k in mistakes))).to.deep.equal([]);
  });

  for (const [keyword, [spec, path]] of Object.entries(mistakes)) {
    it(`names a ${keyword} mistake with its path and fix, never in ajv's words`, function () {
      if (!keywordsOf(entitySpecSchema).has(keyword)) this.skip();
      let error: unknown;
      try {
        resolveSpec(spec, 'spec.yaml');
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(EntitySpecError);
      const { problems } = error as EntitySpecError;
      expect(problems.map((p) => p.path)).to.include(path);
      for (const problem of problems) {
        // ajv's own phrasings, which a user of the spec should never read.
        expect(problem.message).not.to.match(
          /must NOT|must match|must be equal|must have|must be [<>]=|must be (string|number|integer|boolean|array|object|null)\b|must pass/,
        );
        expect(problem.fix).not.to.equal('');
      }
    });
  }
});

describe('entity generator mistakes, reported once', function () {
  this.timeout(60_000);
  let scratch: ReturnType<typeof scratchFolder>;
  let app: string;
  before(async () => {
    scratch = scratchFolder('entity-mistakes');
    app = join(scratch.path, 'shop');
    const plop = await nodePlop(join(repoRoot, 'plopfile.ts'), {
      destBasePath: repoRoot,
      force: false,
    });
    const { failures } = await plop
      .getGenerator('app')
      .runActions({ name: 'shop', directory: app, install: false });
    expect(failures).to.deep.equal([]);
  });
  after(() => scratch?.remove());

  it('reports a spec with three problems in one round, each once, in plain words', async () => {
    const spec = join(scratch.path, 'three.yaml');
    writeFileSync(spec, threeMistakes);
    const generator = await entityGenerator(join(scratch.path, 'unused'));
    const error = await generator.runActions({ specFile: spec }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(EntitySpecError);
    const { problems, message } = error as EntitySpecError;
    expect(problems.map((p) => `${p.path}: ${p.message}`)).to.deep.equal([
      'fields.name.maxlenght: is not a key here',
      'actions[0].verb: "GET" is not allowed',
      'create[1]: "prize" is not a field',
    ]);
    expect(problems[0]!.fix).to.contain('did you mean maxLength?');
    expect(problems[2]!.fix).to.contain('did you mean price?');
    // Never ajv's own words.
    expect(message).not.to.match(/must (NOT )?(have|be|match|equal)/);

    const cli = plopEntity(app, '--spec', spec);
    expect(cli.status, cli.output).to.equal(1);
    expect(cli.output).to.contain(`${spec} has 3 problems`);
    for (const path of ['fields.name.maxlenght', 'actions[0].verb', 'create[1]']) {
      expect(cli.output.split(`- ${path}:`).length - 1, path).to.equal(1);
    }
    expect(existsSync(join(app, 'src/slices/products'))).to.equal(false);
  });

  it('reports bypass arguments with problems of form and of meaning in one round', async () => {
    const generator = await entityGenerator(join(scratch.path, 'unused'));
    const error = await generator
      .runActions({
        name: 'Customer',
        fields: 'email:Strng!, age:intger',
        create: 'email, agee',
        idempotent: 'Craete',
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(EntitySpecError);
    expect((error as EntitySpecError).problems.map((p) => p.path)).to.deep.equal([
      '--fields[0]',
      'fields.age.type',
      'idempotent[0]',
      'create[1]',
    ]);
    expect((error as EntitySpecError).problems.map((p) => p.fix)).to.satisfy((fixes: string[]) =>
      ['string?', 'integer?', 'Create?', 'age?'].every((guess, i) =>
        fixes[i]!.startsWith(`did you mean ${guess}`),
      ),
    );
  });

  it('refuses a wrong type at the fields prompt of plop, and asks again, keeping the answers', async () => {
    const { status, output } = await typeAnswers(app, [
      ['Spec file', ''],
      ['Entity name', 'Customer'],
      ['Fields', 'email:strng!, name:string(100)'],
      // Refused at once, with the fix and the types; typed again at the same prompt.
      ['did you mean string?', 'email:string!, name:string(100)'],
      ['Constructor parameters', 'email, nmae'],
      ['did you mean name?', 'email, name'],
      ['Update methods', 'Rename(name)'],
      ['Actions', ''],
      ['DTO', ''],
      ['Audited', ''],
      ['Owned', ''],
      ['Events', ''],
      ['idempotency key', ''],
      ['Plural', ''],
      ['Table name', ''],
      ['URL segment', ''],
      ['Validate request bodies', ''],
    ]);
    expect(status, output).to.equal(0);
    const shown = output.replace(/\s+/g, ' ');
    expect(shown).to.contain('>> fields.email.type: "strng" is not allowed');
    expect(shown).to.contain(`use one of ${FIELD_KINDS.join(', ')}`);
    const saved = readFileSync(join(app, 'src/slices/customers/customer.entity.yaml'), 'utf8');
    expect(saved).to.contain('type: string').and.to.contain('maxLength: 100');
    expect(saved).to.contain('Rename');
  });

  it('says what it kept and why, and exits non-zero, when a changed spec finds every file of a slice without its saved spec', async () => {
    expect(plopEntity(app, '--spec', productSpec).status).to.equal(0);
    const entity = join(app, 'src/slices/products/product.entity.ts');
    // The slice's saved spec and base copy are gone (an app from an older slicekit, a clean-up):
    // nothing to upgrade from.
    rmSync(join(app, 'src/slices/products/product.entity.yaml'));
    rmSync(join(app, '.slicekit'), { recursive: true, force: true });
    const changed = join(scratch.path, 'product.yaml');
    writeFileSync(
      changed,
      readFileSync(productSpec, 'utf8').replace(
        '    maxLength: 150',
        '    maxLength: 150\n  sku:\n    type: string\n    maxLength: 20',
      ),
    );
    const before = readFileSync(entity, 'utf8');
    const cli = plopEntity(app, '--spec', changed);
    expect(cli.status, cli.output).to.equal(1);
    expect(cli.output).to.contain(
      'src/slices/products/product.entity.ts (exists and differs from what the spec generates; kept)',
    );
    expect(cli.output).to.contain('nothing was written');
    // The base copy and events index still had their say: the report comes last.
    expect(cli.output).not.to.contain('Aborted');
    expect(cli.output).to.contain('--force');
    expect(cli.output).to.contain('docs/evolving-entities.md');
    expect(readFileSync(entity, 'utf8')).to.equal(before);

    // With --force it is written.
    const forced = plopEntity(app, '--spec', changed, '--force');
    expect(forced.status, forced.output).to.equal(0);
    expect(readFileSync(entity, 'utf8')).to.contain('sku');
  });
});
