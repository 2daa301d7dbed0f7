// What `npm run build:generators` compiles ahead of a run, so that a run need not: the templates
// (Handlebars precompile) and the spec schema's validator (ajv standalone code). Each must do
// exactly what compiling at run time does: the same files for a slice, the same problems for a
// spec.
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { compileOnce } from '../../generators/helpers.js';
import { compiledValidator, specValidatorModule } from '../../generators/model/structure.js';
import {
  loadPrecompiled,
  precompiledModule,
  type TemplateSpec,
} from '../../generators/precompiled.js';
import { repoRoot } from '../support/scratch-slices.js';
import { uniqueName } from '../support/services.js';

const templates = fileURLToPath(new URL('../../templates/', import.meta.url));
const productSpec = join(repoRoot, 'docs/examples/product.yaml');

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      // A migration's name carries the time of the run.
      else out[relative(dir, path).replace(/\d{14}_/, '')] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('what the build compiles ahead of a run', function () {
  this.timeout(60_000);
  const dir = join(repoRoot, '.work', uniqueName('build-artifacts'));
  before(() => mkdirSync(dir, { recursive: true }));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders a slice from the precompiled templates exactly as from their text', async () => {
    const module = join(dir, 'precompiled.cjs');
    writeFileSync(module, precompiledModule(Handlebars, templates));
    const built = loadPrecompiled(module);
    let used = 0;
    const counted = new Proxy(built, {
      get: (target, key: string) => {
        if (key in target) used++;
        return target[key];
      },
    }) as Record<string, TemplateSpec>;
    const generate = async (out: string, precompiled: Record<string, TemplateSpec>) => {
      const plop = await nodePlop(undefined, { destBasePath: out, force: false });
      // Plop's one Handlebars: the build's templates for one run, none for the other.
      compileOnce((plop as unknown as { handlebars: typeof Handlebars }).handlebars, precompiled);
      registerEntityGenerator(plop);
      const result = await plop
        .getGenerator('entity')
        .runActions({ specFile: productSpec, now: '2024-05-01T09:30:00Z' });
      expect(result.failures).to.deep.equal([]);
      return filesUnder(out);
    };
    const fromBuild = await generate(join(dir, 'built'), counted);
    expect(used, 'templates taken from the build').to.be.greaterThan(10);
    expect(fromBuild).to.deep.equal(await generate(join(dir, 'compiled'), {}));
  });

  it('reports the same problems with the standalone spec validator as with the compiled one', async () => {
    const module = join(dir, 'spec-validator.cjs');
    writeFileSync(module, await specValidatorModule());
    const { default: standalone } = (await import(module)) as {
      default: ReturnType<typeof compiledValidator>;
    };
    const compiled = compiledValidator();
    const bad = {
      entity: 'seat',
      extra: 1,
      fields: {
        row: { type: 'integr', unique: { ignoreCase: true } },
        code: { type: 'string', unique: { ignorecase: true }, maxLength: -1 },
      },
      create: ['nope', { name: 1 }],
      updates: [{ name: 'x', parameters: 'all' }],
    };
    expect(standalone(bad)).to.equal(false);
    expect(compiled(bad)).to.equal(false);
    expect(standalone.errors).to.have.length.greaterThan(4);
    expect(standalone.errors).to.deep.equal(compiled.errors);
    const good = { entity: 'Seat', fields: { code: { type: 'string', unique: true } } };
    expect([standalone(good), compiled(good)]).to.deep.equal([true, true]);
  });
});
