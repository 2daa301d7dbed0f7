// Preconditions of methods (`when: { status: draft }`): resolved against the spec's fields, refused
// with the method, the field and the fix, and written as a guard clause throwing a RuleViolation.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { sliceBase } from '../../generators/entity/views/index.js';
import { sliceTestView } from '../../generators/entity/views/slice-test.js';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';

const fields: EntitySpec['fields'] = {
  status: { type: 'enum', values: ['draft', 'placed', 'shipped'], default: 'draft' },
  isLocked: { type: 'boolean', default: false },
  note: { type: 'text' },
};

function problemsOf(spec: EntitySpec): readonly SpecProblem[] {
  try {
    resolveSpec(spec, 'order.yaml');
  } catch (error) {
    expect(error).to.be.instanceOf(EntitySpecError);
    return (error as EntitySpecError).problems;
  }
  return [];
}

describe('entity spec: method preconditions (when)', () => {
  it('takes a value or a list of values of an enum or boolean field, on actions and updates', () => {
    const model = resolveSpec(
      {
        entity: 'Order',
        fields,
        updates: [
          {
            name: 'ChangeNote',
            parameters: [{ name: 'text', type: 'text' }],
            effects: [{ set: 'note', from: 'text' }],
            when: { isLocked: false },
          },
        ],
        actions: [
          {
            name: 'Place',
            when: { status: 'draft' },
            effects: [{ set: 'status', value: 'placed' }],
          },
          {
            name: 'Cancel',
            when: { status: ['draft', 'placed'] },
            effects: [{ set: 'status', value: 'draft' }],
          },
        ],
      },
      'order.yaml',
    );
    const when = model.methods.map((m) =>
      m.when.map((c) => ({ field: c.field.name.camel, values: c.values })),
    );
    expect(when).to.deep.equal([
      [{ field: 'isLocked', values: [false] }],
      [{ field: 'status', values: ['draft'] }],
      [{ field: 'status', values: ['draft', 'placed'] }],
    ]);
  });

  it('refuses an unknown field, a field it cannot compare and a value the field cannot hold, naming the method and the fix', () => {
    const problems = problemsOf({
      entity: 'Order',
      fields,
      actions: [
        { name: 'Place', when: { stats: 'draft' }, effects: [{ set: 'status', value: 'placed' }] },
        { name: 'Ship', when: { note: 'x' }, effects: [{ set: 'status', value: 'shipped' }] },
        {
          name: 'Hold',
          when: { status: ['draft', 'held'], isLocked: 'no' },
          effects: [{ set: 'isLocked', value: true }],
        },
      ],
    });
    expect(problems).to.deep.equal([
      {
        path: 'actions[0].when.stats',
        message: 'Place cannot depend on "stats": Order has no such field',
        fix: 'name one of status, isLocked, or write the rule in the entity method (throw new RuleViolation)',
      },
      {
        path: 'actions[1].when.note',
        message:
          'Ship cannot depend on note: it is text, and when compares enum and boolean fields only',
        fix: 'name one of status, isLocked, or write the rule in the entity method (throw new RuleViolation)',
      },
      {
        path: 'actions[2].when.status',
        message: 'Hold: "held" is not a value of status',
        fix: 'use values of draft, placed, shipped',
      },
      {
        path: 'actions[2].when.isLocked',
        message: 'Hold: "no" is not true or false',
        fix: 'write true or false',
      },
    ]);
  });

  it('refuses a when that is not field: value pairs, with the fix', () => {
    const problems = problemsOf({
      entity: 'Order',
      fields,
      actions: [
        { name: 'Place', when: ['draft'] as never, effects: [{ set: 'status', value: 'placed' }] },
      ],
    });
    expect(problems.map((p) => p.path)).to.deep.equal(['actions[0].when']);
    expect(problems[0]!.fix).to.contain('when: { status: draft }');
  });

  it('has the generated test put a new row where a method is allowed when its default is not', () => {
    const model = resolveSpec(
      {
        entity: 'Order',
        fields,
        actions: [
          {
            name: 'Ship',
            when: { status: 'placed' },
            effects: [{ set: 'status', value: 'shipped' }],
          },
          { name: 'Lock', effects: [{ set: 'isLocked', value: true }] },
        ],
      },
      'order.yaml',
    );
    const view = sliceTestView(model, sliceBase(model));
    expect(view.methods.map((m) => m.allowed)).to.deep.equal([{ status: 'placed' }, undefined]);
    expect(view.ruleTests).to.have.length(1);
    expect(view.ruleTests[0]).to.deep.include({
      rule: 'order.ship.status',
      conditionText: 'status is placed',
      refused: { status: 'draft' },
      refusedText: 'status is draft',
      allowed: { status: 'placed' },
    });
    // Ten Ships at once on one row: the first one leaves it shipped, so the others are refused.
    expect(view.concurrentChanges.map((m) => m.camel)).to.deep.equal(['lock']);
  });

  it('writes the guard clause, a RuleViolation naming the rule, and its generated test', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slicekit-when-'));
    try {
      const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
      registerEntityGenerator(plop);
      const result = await plop.getGenerator('entity').runActions({
        now: '20240501093000',
        spec: join(import.meta.dirname, '../../docs/examples/shop'),
      });
      expect(result.failures).to.deep.equal([]);
      const entity = readFileSync(join(dir, 'src/slices/orders/order.entity.ts'), 'utf8');
      expect(entity).to.contain("import { RuleViolation } from '@slicekit/runtime/domain';");
      expect(entity).to.contain(
        [
          '  place(): void {',
          "    if (this.status !== 'draft') {",
          '      throw new RuleViolation(',
          "        'order.place.status',",
          '        `Place needs status draft; it is ${this.status}`,',
          '      );',
          '    }',
          "    this.status = 'placed';",
        ].join('\n'),
      );
      const openapi = readFileSync(join(dir, 'src/slices/orders/order.openapi.ts'), 'utf8');
      expect(openapi).to.contain("rules: ['order.place.status']");
      const test = readFileSync(join(dir, 'test/orders.test.ts'), 'utf8');
      expect(test).to.contain("describe('place only when status is draft', () => {");
      expect(test).to.contain("update({ status: 'placed' });");
      expect(test).to.contain(
        "expect(res.body).to.include({ code: 'crud.rule_violation', rule: 'order.place.status' });",
      );
      // A new order is a draft: the other tests of Place need not put it in that state first.
      expect(test.match(/update\(\{ status: 'draft' \}\)/g)).to.have.length(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
