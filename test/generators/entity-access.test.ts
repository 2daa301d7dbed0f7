// Roles per operation (`access`) and the row scope beyond the owner (`tenant`, `owned: { bypass }`):
// every spec mistake reported in one run with its fix; a generated library app (books shared by
// every library, shelves and loans kept per library, a tenant) checks roles before the row (401
// anonymous, 403 auth.forbidden without a role, 404 outside the row scope), keeps look-alike
// tenants apart on every route, soft-deletes and restores its books and loans (unique values,
// references and ?deleted=), documents each rule in OpenAPI, and its own generated tests pass on
// SQLite, PostgreSQL and MySQL.
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOpenApiDocument, type SliceDescription } from '@slicekit/runtime/openapi';
import { generateApp } from './support/generated-app.js';
import { EntitySpecError, type SpecProblem } from '../../generators/model/errors.js';
import { resolveSpec } from '../../generators/model/resolve.js';
import type { EntitySpec } from '../../generators/model/types.js';
import { run } from '../e2e/support/processes.js';
import { appEnv, scratchFolder } from '../e2e/support/workspace.js';
import {
  requireService,
  serviceUrls,
  uniqueName,
  withDatabase,
  type Dialect,
} from '../support/services.js';

// The library: Book (roles, PATCH, soft delete), Shelf (tenant) and Loan (tenant, owned with a
// bypass role, a soft-deleting child of Book).
const librarySpecs = fileURLToPath(new URL('./fixtures/access/', import.meta.url));

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

  it('lets restore through to whom delete is, and names it only under softDelete', () => {
    const soft = { ...book, softDelete: true, access: { delete: ['admin'] } };
    expect(resolveSpec(soft, 'book.yaml').access?.restore).to.deep.equal(['admin']);
    const named = { ...soft, access: { delete: ['admin'], restore: ['librarian'] } };
    expect(resolveSpec(named, 'book.yaml').access?.restore).to.deep.equal(['librarian']);
    expect(problemsOf({ ...book, access: { restore: ['admin'] } })[0]?.path).to.equal(
      'access.restore',
    );
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

describe('a generated app with roles per operation and tenants', function () {
  this.timeout(240_000);
  const databases: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];
  let scratch: ReturnType<typeof scratchFolder>;
  const appDir = (database: Dialect) => join(scratch.path, database);

  before(async () => {
    scratch = scratchFolder('entity-access');
    for (const database of databases) {
      await generateApp(appDir(database), { name: 'library', database, specFile: librarySpecs });
    }
  });
  after(() => scratch?.remove());

  it('documents each requirement in OpenAPI: bearer and 401, and 403 where roles are named', async () => {
    const file = join(appDir('sqlite'), 'src/slices/books/book.openapi.ts');
    const { bookOpenApi } = (await import(pathToFileURL(file).href)) as {
      bookOpenApi: SliceDescription;
    };
    const document = buildOpenApiDocument([bookOpenApi]);
    type Operation = {
      security?: unknown;
      description?: string;
      responses: Record<string, { description: string }>;
    };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const list = paths['/v1/books']!.get!;
    expect(list.security).to.equal(undefined);
    // Anyone may list; only ?deleted= needs a caller (an admin, who may restore).
    expect(list.responses['401']!.description).to.contain('deleted');
    const get = paths['/v1/books/{id}']!.get!;
    expect(get.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(get.responses).to.have.property('401');
    expect(get.responses).to.not.have.property('403');
    const revise = paths['/v1/books/{id}']!.put!;
    expect(revise.description).to.contain('librarian, admin');
    expect(revise.responses['403']!.description).to.contain('auth.forbidden');
    expect(document.components.securitySchemes).to.have.property('bearerAuth');
    const patch = paths['/v1/books/{id}']!.patch! as Operation & {
      requestBody: { content: Record<string, unknown> };
    };
    expect(Object.keys(patch.requestBody.content)).to.deep.equal([
      'application/merge-patch+json',
      'application/json',
    ]);
    expect(patch.description).to.contain('librarian, admin');
    const restore = paths['/v1/books/{id}/restore']!.post!;
    expect(restore.description).to.contain('admin');
    expect(Object.keys(restore.responses)).to.include.members(['200', '403', '404', '409', '412']);
    const deleted = (list as Operation & { parameters: { name: string }[] }).parameters.find(
      (p) => p.name === 'deleted',
    );
    expect(deleted).to.not.equal(undefined);
    expect(list.responses['403']!.description).to.contain('deleted');
  });

  it("documents a tenant entity's bearer, 401 and 403 auth.tenant_required on every operation", async () => {
    const file = join(appDir('sqlite'), 'src/slices/loans/loan.openapi.ts');
    const { loanOpenApi } = (await import(pathToFileURL(file).href)) as {
      loanOpenApi: SliceDescription;
    };
    const paths = buildOpenApiDocument([loanOpenApi]).paths as Record<
      string,
      Record<string, { security?: unknown; responses: Record<string, { description: string }> }>
    >;
    // Each path's operations (its shared `parameters` apart).
    const operations = Object.values(paths).flatMap((item) =>
      Object.entries(item).flatMap(([method, operation]) =>
        method === 'parameters' ? [] : [operation],
      ),
    );
    expect(operations.length).to.be.greaterThan(6);
    for (const operation of operations) {
      expect(operation.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(operation.responses).to.have.property('401');
      expect(operation.responses['403']!.description).to.contain('auth.tenant_required');
    }
  });

  for (const database of databases) {
    it(`passes its own generated tests on ${database}`, async function () {
      if (database !== 'sqlite') await requireService(this, database);
      const url =
        database === 'sqlite'
          ? undefined
          : withDatabase(serviceUrls[database], uniqueName('books'));
      const output = await run('npm', ['test'], {
        cwd: appDir(database),
        env: appEnv(url ? { DATABASE_URL: url } : {}),
      });
      expect(output).to.match(/Revise: PUT \/v1\/books\/\{id\} answers 401 anonymous, 403/);
      expect(output).to.match(/Patch: PATCH \/v1\/books\/\{id\} changes title only/);
      expect(output).to.match(/Patch: null clears shelf/);
      expect(output).to.match(/Patch: answers 415 naming both media types/);
      expect(output).to.match(/keeps a tenant's loans to it: to a look-alike tenant every route/);
      expect(output).to.match(/keeps a tenant's shelves to it/);
      expect(output).to.match(/refuses a token naming no tenant: 403 auth.tenant_required/);
      expect(output).to.match(/lets librarian reach every caller's loans of its tenant/);
      expect(output).to.match(/Delete marks a book: 404 and gone from the list/);
      expect(output).to.match(
        /answers 403 to \?deleted= from a caller who may list but not restore/,
      );
      expect(output).to.match(
        /lets a deleted book's isbn be taken again; restoring it then is 409/,
      );
      expect(output).to.match(/answers 422 naming bookId for a book that is deleted/);
      expect(output).to.match(
        /restore: POST \/v1\/books\/\{id\}\/restore answers 401 anonymous, 403/,
      );
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });
  }
});
