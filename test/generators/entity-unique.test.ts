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

  it('compares an email ignoring case unless told otherwise, other text exactly unless told', () => {
    const model = resolveSpec(
      {
        entity: 'Member',
        fields: {
          email: { type: 'email', unique: true },
          login: { type: 'email', unique: { ignoreCase: false } },
          handle: { type: 'string', unique: true },
          nick: { type: 'string', unique: { ignoreCase: true } },
        },
      },
      'member.yaml',
    );
    const ignoring = model.fields.filter((f) => f.ignoreCase).map((f) => f.name.camel);
    expect(ignoring).to.deep.equal(['email', 'nick']);
  });

  it('refuses ignoreCase on a field without text, and a malformed unique, naming each', () => {
    let error: unknown;
    try {
      resolveSpec(
        {
          entity: 'Seat',
          fields: {
            row: { type: 'integer', unique: { ignoreCase: true } },
            code: { type: 'string', unique: { ignorecase: true } as never },
            label: { type: 'string', unique: 'yes' as never },
          },
        },
        'seat.yaml',
      );
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EntitySpecError);
    const paths = (error as EntitySpecError).problems.map((p) => p.path);
    expect(paths).to.include.members([
      'fields.row.unique.ignoreCase',
      'fields.code.unique.ignorecase',
      'fields.label.unique',
    ]);
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

  it('refuses sortable and filterable where no list could use the index, naming the field', () => {
    let error: unknown;
    try {
      resolveSpec(
        {
          entity: 'Note',
          fields: {
            body: { type: 'text', sortable: true },
            secret: { type: 'string', filterable: true },
            tags: { type: 'reference', entity: 'Tag', many: true, sortable: true },
          },
          dto: { exclude: ['secret'] },
        },
        'note.yaml',
      );
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EntitySpecError);
    expect((error as EntitySpecError).problems).to.deep.equal([
      {
        path: 'fields.body.sortable',
        message:
          'a text column cannot carry an index on every database, so lists cannot order by body from one',
        fix: 'use type string with a maxLength, or remove sortable',
      },
      {
        path: 'fields.secret.filterable',
        message: 'secret is not in the DTO, so no list can filter by it',
        fix: 'keep secret in dto, or remove filterable',
      },
      {
        path: 'fields.tags.sortable',
        message:
          "tags is a many-to-many, kept in its join table: the entity's table has no column to index",
        fix: 'remove sortable',
      },
    ]);
  });
});
