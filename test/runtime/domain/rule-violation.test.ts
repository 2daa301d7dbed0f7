// RuleViolation: a domain error free of HTTP, recognised also when thrown by another copy of the
// runtime (matched by name, code and rule).
import { expect } from 'chai';
import { isRuleViolation, RuleViolation } from '@slicekit/runtime/domain';

describe('RuleViolation', () => {
  it('carries the rule, the message and 409 unless told 422', () => {
    const conflict = new RuleViolation('order.place.status', 'Place needs status draft');
    expect(conflict).to.include({
      name: 'RuleViolation',
      code: 'crud.rule_violation',
      rule: 'order.place.status',
      message: 'Place needs status draft',
      status: 409,
    });
    expect(new RuleViolation('order.total', 'too much', { status: 422 }).status).to.equal(422);
  });

  it('is recognised by shape when it comes from another copy of the runtime', () => {
    const copy = Object.assign(new Error('x'), {
      name: 'RuleViolation',
      code: 'crud.rule_violation',
      rule: 'r',
    });
    expect(isRuleViolation(copy)).to.equal(true);
    expect(isRuleViolation(new Error('x'))).to.equal(false);
    expect(isRuleViolation(undefined)).to.equal(false);
  });
});
