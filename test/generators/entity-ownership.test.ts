// An owned entity's ownedBy never reaches its DTO, so no caller can read, filter, search or sort it.
import { expect } from 'chai';
import { EntitySpecError } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';

const owned = {
  entity: 'Note',
  owned: true,
  fields: { title: { type: 'string', required: true } },
};

describe('entity spec: ownership', () => {
  it('keeps ownedBy out of the DTO even when the spec does not exclude it', () => {
    const model = resolveSpec(owned, 'note.yaml');
    expect(model.fields.map((f) => f.name.camel)).to.include('ownedBy');
    expect(model.dto.map((f) => f.name.camel)).to.deep.equal([
      'id',
      'title',
      'createdBy',
      'createdOn',
      'updatedBy',
      'updatedOn',
    ]);
  });

  it('refuses a DTO that includes ownedBy, naming the path and the fix', () => {
    let error: unknown;
    try {
      resolveSpec({ ...owned, dto: { include: ['title', 'ownedBy'] } }, 'note.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EntitySpecError);
    expect((error as EntitySpecError).problems).to.deep.equal([
      {
        path: 'dto.include[1]',
        message: 'ownedBy is never in the DTO: a caller only ever sees their own rows',
        fix: 'remove it',
      },
    ]);
  });
});
