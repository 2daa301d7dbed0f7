// Declared rules (`rules: [dueOn > loanedOn, extensions <= 2]`) and increment/decrement effects:
// resolved against the spec's fields, every mistake reported with the others. The generated Loan
// app's checks (422 from the request, 409 from the row's state), its OpenAPI and its own tests
// (samples keeping every rule, a test breaking each) are in feature-app.test.ts (fixtures/rules).
import { expect } from 'chai';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';

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
