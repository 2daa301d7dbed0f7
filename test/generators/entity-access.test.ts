// Roles per operation (`access`), tenants and bypass roles in a spec: each operation resolved to anyone, authenticated or
// its roles, and every spec mistake reported in one run with its fix. The generated app's checks
// (401, 403, 404), its OpenAPI and its own tests are in feature-app.test.ts (fixtures/access).
import { expect } from 'chai';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';
import { tableSnapshot } from '../../generators/upgrade/base.js';

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

describe('entity spec: tenants and bypass roles', () => {
  it('resolves tenant: true to a tenantId kept out of the DTO, and owned: { bypass } to its roles', () => {
    const model = resolveSpec({ ...book, tenant: true, owned: { bypass: ['admin'] } }, 'book.yaml');
    expect(model).to.include({ tenant: true, owned: true });
    expect(model.ownerBypass).to.deep.equal(['admin']);
    expect(model.fields.map((f) => f.name.camel)).to.include.members(['ownedBy', 'tenantId']);
    expect(model.dto.map((f) => f.name.camel)).to.not.include('tenantId');
    expect(resolveSpec({ ...book, owned: true }, 'book.yaml').ownerBypass).to.deep.equal([]);
  });

  it("leads a tenant entity's indexes with tenant_id and, under soft delete, keeps list indexes to live rows", () => {
    const shelf: EntitySpec = {
      entity: 'Shelf',
      tenant: true,
      owned: true,
      fields: {
        code: { type: 'string', required: true, unique: true, maxLength: 20 },
        floor: { type: 'integer', sortable: true },
        zone: { type: 'string', maxLength: 10, filterable: true },
      },
    };
    const plain = tableSnapshot(resolveSpec(shelf, 'shelf.yaml'));
    expect(plain.indexes.map((i) => `${i.method} ${i.columns.join()}`)).to.deep.equal([
      'index tenant_id,created_on,id',
      'index tenant_id,owned_by,created_on,id',
      'unique tenant_id,code',
      'index tenant_id,floor,id',
      'index tenant_id,zone',
    ]);
    expect(plain.liveIndexes).to.equal(undefined);
    const soft = tableSnapshot(resolveSpec({ ...shelf, softDelete: true }, 'shelf.yaml'));
    expect(soft.indexes).to.deep.equal([]);
    expect(soft.liveUnique).to.deep.equal([['tenant_id', 'code']]);
    expect(soft.liveIndexes).to.deep.equal([
      { scope: ['tenant_id'], columns: [], counts: true },
      { scope: ['tenant_id'], columns: ['created_on', 'id'] },
      { scope: ['tenant_id', 'owned_by'], columns: ['created_on', 'id'] },
      { scope: ['tenant_id'], columns: ['floor', 'id'] },
      { scope: ['tenant_id'], columns: ['zone'] },
    ]);
  });

  it('reports each mistake of tenant and bypass with its fix', () => {
    const byPath = (spec: EntitySpec) =>
      Object.fromEntries(problemsOf(spec).map((p) => [p.path, `${p.message} | ${p.fix}`]));
    expect(byPath({ ...book, owned: { bypass: [] } })['owned.bypass']).to.contain('lists no role');
    expect(byPath({ ...book, owned: { bypass: ['anyone'] } })['owned.bypass[0]']).to.contain(
      'leave owned out',
    );
    expect(byPath({ ...book, tenant: 'yes' as unknown as boolean }).tenant).to.contain(
      'true or false',
    );
    expect(
      byPath({ ...book, tenant: true, dto: { include: ['title', 'tenantId'] } })['dto.include[1]'],
    ).to.contain('tenantId is never in the DTO');
    const fixed = { key: 'title', rows: [{ title: 'Odes' }] };
    expect(byPath({ ...book, tenant: true, referenceData: fixed }).referenceData).to.contain(
      'remove tenant: true',
    );
  });
});
