// The generated app of the feature fixtures (test/generators/support/feature-app.ts), one per
// database, its own tests run once per database: per area, what the generated code documents in
// OpenAPI and the lines its own generated tests print, passing, on SQLite, PostgreSQL and MySQL.
// The spec rules of each area are tested beside it (entity-access.test.ts, entity-rules.test.ts).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOpenApiDocument, type SliceDescription } from '@slicekit/runtime/openapi';
import { repoRoot } from '../e2e/support/workspace.js';
import { featureDatabases, useFeatureApp } from './support/feature-app.js';

type Operation = {
  security?: unknown;
  description?: string;
  responses: Record<string, { description: string }>;
};

describe('the generated app of the feature fixtures', function () {
  this.timeout(240_000);
  const app = useFeatureApp();

  /** The OpenAPI paths of the slice whose description `file` (in the SQLite app) exports. */
  async function pathsOf(file: string, name: string) {
    const module = (await import(pathToFileURL(join(app.dir('sqlite'), file)).href)) as Record<
      string,
      SliceDescription
    >;
    const document = buildOpenApiDocument([module[name]!]);
    return {
      document,
      paths: document.paths as Record<string, Record<string, Operation>>,
    };
  }

  for (const database of featureDatabases) {
    it(`passes its own generated tests on ${database}`, async function () {
      const output = await app.testOutput(this, database);
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });
  }

  // The admin's pages of a soft-deleting entity with a merge patch (fixtures/access/book.yaml),
  // type-checked as the app's `npm run typecheck` checks them.
  it("writes Book's admin pages: a merge-patch edit, the request rules, Restore; they type-check", async () => {
    const page = readFileSync(join(app.dir('sqlite'), 'admin/src/resources/book.tsx'), 'utf8');
    expect(page).to.contain("mutationOptions={{ meta: { method: 'PATCH' } }}");
    expect(page).to.contain("const editFields = ['title', 'isbn', 'shelf'];");
    expect(page).to.contain('validate={[required(), maxLength(200)]}');
    expect(page).to.contain('<RestoreButton label="Restore" />');
    // From a module of its own, which an upgrade adds beside an older actions.tsx.
    expect(page).to.contain("import { RestoreButton } from '../restore.js';");
    expect(page).to.match(/source="@deleted"/);
    // Revise, the first update, is a button beside the Borrow action.
    expect(page).to.contain('<ActionButton label="Revise" segment="" verb="PUT">');
    const tsc = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'admin/tsconfig.json'],
      { cwd: app.dir('sqlite'), encoding: 'utf8' },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).to.equal(0);
  });

  // access: roles per operation (fixtures/access). A library app checks roles before the row (401
  // anonymous, 403 auth.forbidden without a role, 404 outside the row scope).
  describe('access: roles per operation', () => {
    it('documents each requirement in OpenAPI: bearer and 401, and 403 where roles are named', async () => {
      const { document, paths } = await pathsOf('src/slices/books/book.openapi.ts', 'bookOpenApi');
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
      expect(Object.keys(restore.responses)).to.include.members([
        '200',
        '403',
        '404',
        '409',
        '412',
      ]);
      const deleted = (list as Operation & { parameters: { name: string }[] }).parameters.find(
        (p) => p.name === 'deleted',
      );
      expect(deleted).to.not.equal(undefined);
      expect(list.responses['403']!.description).to.contain('deleted');
    });

    for (const database of featureDatabases) {
      it(`runs the generated tests of roles and PATCH on ${database}`, async function () {
        const output = await app.testOutput(this, database);
        expect(output).to.match(/Revise: PUT \/v1\/books\/\{id\} answers 401 anonymous, 403/);
        expect(output).to.match(/Patch: PATCH \/v1\/books\/\{id\} changes title only/);
        expect(output).to.match(/Patch: null clears shelf/);
        expect(output).to.match(/Patch: answers 415 naming both media types/);
      });
    }
  });

  // tenants and bypass roles (fixtures/access: Shelf and Checkout are kept per library, a tenant;
  // a librarian reaches every member's checkouts of its library).
  describe('access: tenants and bypass roles', () => {
    it("documents a tenant entity's bearer, 401 and 403 auth.tenant_required on every operation", async () => {
      const { paths } = await pathsOf(
        'src/slices/checkouts/checkout.openapi.ts',
        'checkoutOpenApi',
      );
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

    for (const database of featureDatabases) {
      it(`runs the generated tests of tenants and bypass roles on ${database}`, async function () {
        const output = await app.testOutput(this, database);
        expect(output).to.match(
          /keeps a tenant's checkouts to it: to a look-alike tenant every route/,
        );
        expect(output).to.match(/keeps a tenant's shelves to it/);
        expect(output).to.match(/refuses a token naming no tenant: 403 auth.tenant_required/);
        expect(output).to.match(/lets librarian reach every caller's checkouts of its tenant/);
      });
    }
  });

  // soft delete and restore (fixtures/access: Book and its Checkouts). A deleted book leaves every
  // read, its isbn may be taken again, references to it are refused, restore brings it back.
  describe('access: soft delete and restore', () => {
    it("documents ?deleted= on a soft-deleting child's nested routes as on its list", async () => {
      const { paths } = await pathsOf(
        'src/slices/checkouts/checkout.openapi.ts',
        'checkoutOpenApi',
      );
      for (const path of [
        '/v1/checkouts',
        '/v1/shelves/{id}/checkouts',
        '/v1/books/{id}/checkouts',
      ]) {
        const list = paths[path]!.get! as Operation & { parameters: { name: string }[] };
        expect(
          list.parameters.map((p) => p.name),
          path,
        ).to.include('deleted');
      }
    });

    for (const database of featureDatabases) {
      it(`runs the generated tests of soft delete and restore on ${database}`, async function () {
        const output = await app.testOutput(this, database);
        expect(output).to.match(/Delete marks a book: 404 and gone from the list/);
        expect(output).to.match(
          /answers 403 to \?deleted= from a caller who may list but not restore/,
        );
        expect(output).to.match(
          /lets a deleted book's isbn be taken again; restoring it then is 409/,
        );
        expect(output).to.match(/answers 422 naming bookId for a book that is deleted/);
        expect(output).to.match(
          /lists them under their shelf: 200, and 404 under one that does not exist; deleted ones with \?deleted=only, 403 to a caller who may not restore/,
        );
        expect(output).to.match(
          /restore: POST \/v1\/books\/\{id\}\/restore answers 401 anonymous, 403/,
        );
      });
    }
  });

  // rules: declared rules and increment/decrement effects (fixtures/rules). A Loan app keeps them
  // (422 from the request, 409 from the row's state); its generated tests use samples keeping
  // every rule and a test breaking each, and refuse a borrower email differing in case only.
  describe('rules: declared rules and steps', () => {
    it('documents each rule in OpenAPI: 422 for a request breaking it, 409 for the state', async () => {
      const { paths } = await pathsOf('src/slices/loans/loan.openapi.ts', 'loanOpenApi');
      const create = paths['/v1/loans']!.post!.responses;
      expect(create['422']!.description).to.contain('loan.dueOn.gt.loanedOn');
      expect(create['409']!.description).to.match(
        /another Loan already has this borrowerEmail \(compared ignoring case\) \(crud\.duplicate\)/i,
      );
      const extend = paths['/v1/loans/{id}/extend']!.post!.responses;
      expect(extend['422']!.description).to.contain('loan.dueOn.gt.loanedOn');
      expect(extend['409']!.description).to.contain('loan.extensions.lte.2');
    });

    for (const database of featureDatabases) {
      it(`runs the generated tests of the declared rules on ${database}`, async function () {
        const output = await app.testOutput(this, database);
        expect(output).to.match(/declared rules/);
        // An email is unique ignoring case: the same address in other case is refused.
        expect(output).to.match(
          /answers 409 crud.duplicate to a second loan whose borrowerEmail differs in case only/,
        );
      });
    }
  });
});
