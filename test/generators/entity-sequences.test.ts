// Fields numbered by a sequence on create: defaults resolved from the spec, and every misuse
// refused with its path and fix.
import { expect } from 'chai';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';

const ticket = {
  entity: 'Ticket',
  fields: {
    number: { type: 'string', sequence: { format: 'T{DateTime:yyMMdd}{1:00000}', max: 99999 } },
    seat: { type: 'integer', sequence: {} },
    title: { type: 'string', required: true },
  },
};

function problemsOf(spec: unknown): SpecProblem[] {
  try {
    resolveSpec(spec, 'ticket.yaml');
  } catch (error) {
    expect(error).to.be.instanceOf(EntitySpecError);
    return [...(error as EntitySpecError).problems];
  }
  expect.fail('the spec was accepted');
}

describe('entity spec: sequences', () => {
  it('numbers fields outside the create parameters, naming each sequence after its column', () => {
    const model = resolveSpec(ticket, 'ticket.yaml');
    expect(model.create.map((p) => p.name.camel)).to.deep.equal(['title']);
    const byName = new Map(model.fields.map((f) => [f.name.camel, f]));
    expect(byName.get('number')).to.include({ notNull: true });
    expect(byName.get('number')!.sequence).to.deep.equal({
      name: 'tickets_number',
      format: 'T{DateTime:yyMMdd}{1:00000}',
      valueType: 'bigint',
      max: 99999,
    });
    expect(byName.get('seat')!.sequence).to.deep.equal({
      name: 'tickets_seat',
      format: '{1}',
      valueType: 'int',
    });
  });

  it('refuses a sequence on a type it cannot number, with a default, or with a bad format', () => {
    const problems = problemsOf({
      entity: 'Ticket',
      fields: {
        active: { type: 'boolean', sequence: {} },
        code: { type: 'string', default: 'A', sequence: { format: 'T{1}-{1}' } },
        seat: { type: 'integer', sequence: { format: 'S{1}', max: 3_000_000_000 } },
      },
    });
    expect(problems.map((p) => p.path)).to.deep.equal([
      'fields.active.sequence',
      'fields.code.default',
      'fields.code.sequence.format',
      'fields.seat.sequence.format',
      'fields.seat.sequence.max',
    ]);
    expect(problems[2]!.fix).to.contain('{1:00000}');
    expect(problems[4]!.fix).to.contain('valueType: bigint');
  });

  it('refuses a format longer than the column, and 64-bit numbers in a 32-bit column', () => {
    const problems = problemsOf({
      entity: 'Ticket',
      fields: {
        number: {
          type: 'string',
          maxLength: 10,
          sequence: { format: 'T{DateTime:yyMMdd}{1:00000}' },
        },
        seat: { type: 'integer', sequence: { valueType: 'bigint' } },
      },
    });
    expect(problems).to.deep.equal([
      {
        path: 'fields.number.sequence.max',
        message: `values up to ${Number.MAX_SAFE_INTEGER} render 23 characters, more than maxLength 10`,
        fix: 'give a lower max, or maxLength: 23',
      },
      {
        path: 'fields.seat.sequence.valueType',
        message: 'an integer field is a 32-bit column',
        fix: 'use valueType: int, or a string field for larger numbers',
      },
    ]);
    const fits = {
      type: 'string',
      maxLength: 12,
      sequence: { format: 'T{DateTime:yyMMdd}{1:00000}', max: 99999 },
    };
    expect(() =>
      resolveSpec({ entity: 'Ticket', fields: { number: fits } }, 'ticket.yaml'),
    ).not.to.throw();
  });

  it('refuses a numbered field as a create or method parameter, or as an effect', () => {
    const problems = problemsOf({
      ...ticket,
      create: ['title', 'number'],
      updates: [{ name: 'Renumber', parameters: ['seat'] }],
      actions: [{ name: 'Reset', effects: [{ set: 'seat', value: 1 }] }],
    });
    expect(problems).to.deep.include({
      path: 'create[1]',
      message: 'number is numbered by its sequence on create',
      fix: 'remove number; the Create handler sets it',
    });
    expect(problems.map((p) => p.path)).to.include.members([
      'updates[0].parameters[0]',
      'actions[0].effects[0]',
    ]);
  });
});
