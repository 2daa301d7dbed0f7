// The sequence format language and sequence declarations, without a database.
import { expect } from 'chai';
import {
  defineSequence,
  parseSequenceFormat,
  renderSequenceValue,
  SequenceDefinitionError,
} from '@slicekit/runtime/sequences';

const at = new Date('2024-03-09T07:05:04Z');
const render = (format: string, value: number) =>
  renderSequenceValue(parseSequenceFormat(format), value, at);

describe('sequence format', () => {
  it('renders the spec sample T{DateTime:yyMMdd}{1:00000}', () => {
    expect(render('T{DateTime:yyMMdd}{1:00000}', 42)).to.equal('T24030900042');
  });

  it('renders the plain number for {1} and lets it grow past the padding', () => {
    expect(render('{1}', 7)).to.equal('7');
    expect(render('INV-{1:000}', 12345)).to.equal('INV-12345');
  });

  it('renders every date token in UTC and copies other pattern characters', () => {
    expect(render('{DateTime:yyyy-MM-dd HH:mm:ss}/{1}', 1)).to.equal('2024-03-09 07:05:04/1');
  });

  it('writes literal braces from {{ and }}', () => {
    expect(render('{{{1}}}', 3)).to.equal('{3}');
  });

  for (const [format, why] of [
    ['T{DateTime:yyMMdd}', /exactly once/],
    ['{1}{1}', /exactly once/],
    ['{2}', /unknown placeholder/],
    ['{1:##0}', /only hold zeros/],
    ['{1', /unclosed/],
    ['a}b{1}', /unmatched/],
    ['{DateTime}{1}', /needs a pattern/],
  ] as const) {
    it(`refuses the format "${format}"`, () => {
      expect(() => parseSequenceFormat(format)).to.throw(SequenceDefinitionError, why);
    });
  }
});

describe('sequence definition', () => {
  it('defaults to a bigint sequence starting at 1 with the plain number as format', () => {
    const s = defineSequence({ name: 'orders' });
    expect(s).to.include({
      name: 'orders',
      valueType: 'bigint',
      start: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
  });

  it('lists every broken rule with the stable code', () => {
    try {
      defineSequence({ name: '1bad name', valueType: 'int', max: 3_000_000_000, format: '{2}' });
      expect.fail('defineSequence accepted a broken definition');
    } catch (error) {
      expect(error).to.be.instanceOf(SequenceDefinitionError);
      expect((error as SequenceDefinitionError).code).to.equal('sequence_definition_invalid');
      const message = (error as Error).message;
      expect(message).to.match(/name "1bad name"/);
      expect(message).to.match(/does not fit valueType int/);
      expect(message).to.match(/unknown placeholder/);
    }
  });
});
