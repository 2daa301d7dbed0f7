// Declared rules (`rules: [dueOn > loanedOn, extensions <= 2]`) and increment/decrement effects:
// resolved against the spec's fields, every mistake reported with the others; a generated Loan
// app keeps them (422 from the request, 409 from the row's state), documents them in OpenAPI, and
// its own generated tests (samples keeping every rule, a test breaking each) pass on SQLite,
// PostgreSQL and MySQL.
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOpenApiDocument, type SliceDescription } from '@slicekit/runtime/openapi';
import { generateApp } from './support/generated-app.js';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';
import { run } from '../e2e/support/processes.js';
import { appEnv, scratchFolder } from '../e2e/support/workspace.js';
import {
  requireService,
  serviceUrls,
  uniqueName,
  withDatabase,
  type Dialect,
} from '../support/services.js';

const loanSpec = fileURLToPath(new URL('./fixtures/rules/loan.yaml', import.meta.url));

const fields: EntitySpec['fields'] = {
  title: { type: 'string', required: true },
  loanedOn: { type: 'date', required: true },
  dueOn: { type: 'date', required: true },
  returnedAt: { type: 'date-time' },
  extensions: { type: 'integer', default: 0 },
};

function problemsOf(spec: EntitySpec): readonly SpecProblem[] {
  try {
    resolveSpec(spec, 'loan.yaml');
  } catch (error) {
    expect(error).to.be.instanceOf(EntitySpecError);
    return (error as EntitySpecError).problems;
  }
  return [];
}

describe('entity spec: declared rules and steps', () => {
  it('resolves comparisons, bounds and steps, and says which methods check which rule', () => {
    const model = resolveSpec(
      {
        entity: 'Loan',
        fields,
        rules: ['dueOn > loanedOn', 'extensions<=2'],
        actions: [
          {
            name: 'Extend',
            parameters: ['dueOn'],
            effects: [{ set: 'dueOn', from: 'dueOn' }, { increment: 'extensions' }],
          },
          { name: 'Shorten', effects: [{ decrement: 'extensions', by: 1 }] },
        ],
      },
      'loan.yaml',
    );
    expect(model.rules.map((r) => [r.text, r.code])).to.deep.equal([
      ['dueOn > loanedOn', 'loan.dueOn.gt.loanedOn'],
      ['extensions <= 2', 'loan.extensions.lte.2'],
    ]);
    expect(model.methods.map((m) => m.effects.map((e) => e.source))).to.deep.include.members([
      [{ kind: 'step', by: -1 }],
    ]);
  });

  it('reports every mistake in one run, each with its path and fix', () => {
    const problems = problemsOf({
      entity: 'Loan',
      fields: { ...fields, note: { type: 'strng' as 'string' } },
      rules: [
        'dueOn > loanedAt',
        'title > dueOn',
        'dueOn > returnedAt',
        'dueOn > 3',
        'extensions is small',
      ],
      actions: [
        { name: 'Extend', effects: [{ increment: 'title' }] },
        { name: 'Renew', effects: [{ increment: 'extensions', set: 'extensions', value: 1 }] },
      ],
    });
    const byPath = problems.map((p) => `${p.path}: ${p.message} | ${p.fix}`);
    expect(byPath.some((p) => p.startsWith('fields.note.type'))).to.equal(true);
    const rules = (i: number) => byPath.find((p) => p.startsWith(`rules[${i}]`)) ?? '';
    expect(rules(0)).to.contain('"loanedAt" is not a field').and.contain('did you mean loanedOn');
    expect(rules(1)).to.contain('title is string, which has no order');
    expect(rules(2)).to.contain('dueOn is date but returnedAt is date-time');
    expect(rules(3)).to.contain('dueOn is date, and 3 is a number');
    expect(rules(4)).to.contain('is not a rule').and.contain('dueOn > loanedOn');
    expect(byPath.find((p) => p.startsWith('actions[0].effects[0]'))).to.contain(
      'title is string, not a number',
    );
    expect(byPath.find((p) => p.startsWith('actions[1].effects[0]'))).to.contain(
      'has set and increment',
    );
  });
});

describe('a generated app with declared rules', function () {
  this.timeout(240_000);
  const databases: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];
  let scratch: ReturnType<typeof scratchFolder>;
  const appDir = (database: Dialect) => join(scratch.path, database);

  before(async () => {
    scratch = scratchFolder('entity-rules');
    for (const database of databases) {
      await generateApp(appDir(database), { name: 'library', database, specFile: loanSpec });
    }
  });
  after(() => scratch?.remove());

  it('documents each rule in OpenAPI: 422 for a request breaking it, 409 for the state', async () => {
    const file = join(appDir('sqlite'), 'src/slices/loans/loan.openapi.ts');
    const { loanOpenApi } = (await import(pathToFileURL(file).href)) as {
      loanOpenApi: SliceDescription;
    };
    const paths = buildOpenApiDocument([loanOpenApi]).paths as Record<
      string,
      Record<string, { responses: Record<string, { description: string }> }>
    >;
    const create = paths['/v1/loans']!.post!.responses;
    expect(create['422']!.description).to.contain('loan.dueOn.gt.loanedOn');
    const extend = paths['/v1/loans/{id}/extend']!.post!.responses;
    expect(extend['422']!.description).to.contain('loan.dueOn.gt.loanedOn');
    expect(extend['409']!.description).to.contain('loan.extensions.lte.2');
  });

  for (const database of databases) {
    it(`passes its own generated tests on ${database}`, async function () {
      if (database !== 'sqlite') await requireService(this, database);
      const url =
        database === 'sqlite'
          ? undefined
          : withDatabase(serviceUrls[database], uniqueName('loans'));
      const output = await run('npm', ['test'], {
        cwd: appDir(database),
        env: appEnv(url ? { DATABASE_URL: url } : {}),
      });
      expect(output).to.match(/declared rules/);
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });
  }
});
