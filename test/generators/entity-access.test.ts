// Roles per operation (`access`): every spec mistake reported in one run with its fix; a generated
// library app checks roles before the row (401 anonymous, 403 auth.forbidden without a role, 404
// outside the row scope), documents each rule in OpenAPI, and its own generated tests pass on
// SQLite, PostgreSQL and MySQL (among them, a case-variant ISBN refused as a duplicate).
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

const bookSpec = fileURLToPath(new URL('./fixtures/access/book.yaml', import.meta.url));

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

describe('a generated app with roles per operation', function () {
  this.timeout(240_000);
  const databases: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];
  let scratch: ReturnType<typeof scratchFolder>;
  const appDir = (database: Dialect) => join(scratch.path, database);

  before(async () => {
    scratch = scratchFolder('entity-access');
    for (const database of databases) {
      await generateApp(appDir(database), { name: 'library', database, specFile: bookSpec });
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
    expect(list.responses).to.not.have.property('401');
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
    expect(patch.responses['409']!.description).to.match(
      /another Book already has this isbn \(compared ignoring case\) \(crud\.duplicate\)/i,
    );
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
      expect(output).to.match(
        /answers 409 crud.duplicate to a second book whose isbn differs in case only/,
      );
      expect(output).to.match(/Patch: answers 409 crud.duplicate when isbn differs in case only/);
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });
  }
});
