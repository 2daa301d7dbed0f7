// The field-kind registry holds together: for every kind, its sample values are accepted by its
// own request schema and value check, and its wrong value is refused, so a kind added to the
// registry gets seeds and generated tests that pass and a 400 test that fails as it should.
import { expect } from 'chai';
import {
  FIELD_KINDS,
  fieldKinds,
  type FieldConstraints,
  type FieldKind,
} from '@slicekit/runtime/fields';
import { requestAjv } from '@slicekit/runtime/crud';

const constraints: Partial<Record<FieldKind, FieldConstraints>> = {
  enum: { values: ['draft', 'live'] },
  decimal: { precision: 12, scale: 2 },
};

describe('the field-kind registry', () => {
  for (const kind of FIELD_KINDS) {
    const entry = fieldKinds[kind];
    const c = { ...entry.defaults, ...constraints[kind] };
    const validate = requestAjv().compile(entry.schema(c, true));

    it(`${kind}: samples pass its request schema and its value check; its wrong value fails`, () => {
      for (let index = 0; index < 6; index++) {
        for (const name of ['email', 'website', 'name', 'note', kind]) {
          const sample = entry.sample(c, { name, index, seed: 'Registry' });
          expect(validate(sample), `${JSON.stringify(sample)} for ${name}`).to.equal(true);
          expect(entry.problem(sample, c), JSON.stringify(sample)).to.equal(undefined);
        }
      }
      expect(validate(entry.wrong), JSON.stringify(entry.wrong)).to.equal(false);
    });

    it(`${kind}: declares a Knex column, a TypeScript type and only constraints it has`, () => {
      expect(entry.column(c).method).to.match(/^[a-z]+$/);
      expect(entry.jsonType(c)).to.be.a('string').and.not.equal('');
      for (const key of Object.keys(entry.defaults ?? {})) {
        expect(entry.constraints, key).to.include(key);
      }
    });
  }

  it('keeps a proposed sample within the constraints, and its own value for one that cannot fit', () => {
    const at = { name: 'name', index: 1, seed: 'Registry' };
    expect(
      fieldKinds.string.sample({ maxLength: 8 }, { ...at, proposal: 'Rustic Marble Bike' }),
    ).to.equal('Rustic M');
    expect(fieldKinds.integer.sample({ minimum: 1, maximum: 3 }, { ...at, proposal: 9 })).to.equal(
      3,
    );
    expect(fieldKinds.decimal.sample({ scale: 1 }, { ...at, proposal: 12.345 })).to.equal(12.3);
    const values = ['draft', 'placed'];
    expect(fieldKinds.enum.sample({ values }, { ...at, proposal: 'placed' })).to.equal('placed');
    expect(values).to.include(fieldKinds.enum.sample({ values }, { ...at, proposal: 'gone' }));
    const distinct = { ...at, distinct: true };
    expect(fieldKinds.string.sample({ maxLength: 2 }, distinct)).to.have.length.at.most(2);
    expect(fieldKinds.string.sample({ maxLength: 2 }, { ...distinct, index: 2 })).not.to.equal(
      fieldKinds.string.sample({ maxLength: 2 }, distinct),
    );
    expect(fieldKinds.email.sample({}, { ...at, proposal: 'ana@example.org' })).to.equal(
      'ana@example.org',
    );
  });

  it('holds email and url as checked addresses', () => {
    const email = requestAjv().compile(fieldKinds.email.schema({}, true));
    expect(email('ana@example.com')).to.equal(true);
    expect(email('ana.example.com')).to.equal(false);
    const url = requestAjv().compile(fieldKinds.url.schema({}, true));
    expect(url('https://example.com/a?b=c')).to.equal(true);
    expect(url('example.com/a')).to.equal(false);
    expect(fieldKinds.email.problem('ana@', {})).to.equal('not an email address');
    expect(fieldKinds.url.problem('/relative', {})).to.equal('not an absolute URL');
  });
});
