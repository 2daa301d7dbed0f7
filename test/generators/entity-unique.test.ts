// Unique fields in the entity spec: taken from a spec file or the one-line form, and refused with
// the fix on a kind no database indexes whole.
import { expect } from 'chai';
import { specFromAnswers } from '../../generators/model/compact.js';
import { EntitySpecError } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';

describe('entity spec: unique fields', () => {
  it('marks a field unique from a spec and from the one-line form alike', () => {
    const fromSpec = resolveSpec(
      { entity: 'Tag', fields: { name: { type: 'string', required: true, unique: true } } },
      'tag.yaml',
    );
    const fromLine = resolveSpec(
      specFromAnswers({ name: 'Tag', fields: 'name:string!:unique' }, 'the answers'),
      'the answers',
    );
    for (const model of [fromSpec, fromLine]) {
      expect(model.fields.find((f) => f.name.camel === 'name')).to.include({ unique: true });
    }
  });

  it('refuses unique on text and json with the fix', () => {
    let error: unknown;
    try {
      resolveSpec(
        { entity: 'Note', fields: { body: { type: 'text', unique: true } } },
        'note.yaml',
      );
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EntitySpecError);
    expect((error as EntitySpecError).problems).to.deep.equal([
      {
        path: 'fields.body.unique',
        message: 'a text column cannot carry a unique index on every database',
        fix: 'use type string with a maxLength, or remove unique',
      },
    ]);
  });
});
