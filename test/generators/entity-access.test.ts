// Roles per operation (`access`) in a spec: each operation resolved to anyone, authenticated or
// its roles, and every spec mistake reported in one run with its fix. The generated app's checks
// (401, 403, 404), its OpenAPI and its own tests are in feature-app.test.ts (fixtures/access).
import { expect } from 'chai';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';

const book: EntitySpec = {
  entity: 'Book',
  fields: { title: { type: 'string', required: true } },
  updates: [{ name: 'Revise', parameters: ['title'] }],
  actions: [{ name: 'Borrow' }],
};

function problemsOf(spec: EntitySpec): readonly SpecProblem[] {
  try {
    resolveSpec(spec, 'book.yaml');
  } catch (error) {
    expect(error).to.be.instanceOf(EntitySpecError);
    return (error as EntitySpecError).problems;
  }
  return [];
}

describe('entity spec: access', () => {
  it('resolves each operation to anyone, authenticated or its roles', () => {
    const model = resolveSpec(
      { ...book, access: { list: 'anyone', get: 'authenticated', Revise: ['librarian', 'admin'] } },
      'book.yaml',
    );
    expect(model.access).to.deep.equal({
      list: 'anyone',
      get: 'authenticated',
      Revise: ['librarian', 'admin'],
    });
    expect(resolveSpec(book, 'book.yaml').access).to.equal(undefined);
  });

  it('lets PATCH through to whom the first update method is, unless access names patch', () => {
    const revise = { ...book, patch: true, access: { Revise: ['librarian'] } };
    expect(resolveSpec(revise, 'book.yaml').access?.patch).to.deep.equal(['librarian']);
    const named = { ...revise, access: { ...revise.access, patch: ['admin'] } };
    expect(resolveSpec(named, 'book.yaml').access?.patch).to.deep.equal(['admin']);
    expect(problemsOf({ ...book, access: { patch: ['admin'] } })[0]?.path).to.equal('access.patch');
    const clash = problemsOf({
      ...book,
      patch: true,
      updates: [{ name: 'Patch', parameters: ['title'] }],
    });
    expect(clash.map((p) => p.path)).to.include('patch');
  });

  it('reports every mistake in one run, with the other mistakes of the spec', () => {
    const problems = problemsOf({
      ...book,
      fields: { ...book.fields, note: { type: 'strng' as 'string' } },
      access: {
        revise: ['librarian'],
        list: 'librarian',
        get: ['admin', 3, ''],
        create: [],
        Borrow: ['anyone'],
        delete: { roles: ['admin'] },
      },
    });
    const byPath = Object.fromEntries(problems.map((p) => [p.path, `${p.message} | ${p.fix}`]));
    expect(byPath['fields.note.type']).to.be.a('string');
    expect(byPath['access.revise'])
      .to.contain('is not an operation')
      .and.contain('did you mean Revise');
    expect(byPath['access.list'])
      .to.contain('"librarian" is not anyone or authenticated')
      .and.contain('[librarian]');
    expect(byPath['access.get[1]']).to.contain('3 is not a role name');
    expect(byPath['access.get[2]']).to.contain('"" is not a role name');
    expect(byPath['access.create']).to.contain('lists no role');
    expect(byPath['access.Borrow[0]']).to.contain('write anyone on its own');
    expect(byPath['access.delete']).to.contain('is not a rule');
  });
});
