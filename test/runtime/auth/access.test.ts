// Roles per operation: the roles claim (Keycloak's dotted path, Auth0's URL-named claim, Cognito's
// groups, an OAuth scope), its setting, and `requireAccess` answering 401 / 403 before the route.
import { expect } from 'chai';
import express, { type Express } from 'express';
import { SignJWT, type JWTPayload } from 'jose';
import request from 'supertest';
import {
  authenticate,
  authOptionsFromEnv,
  AuthConfigError,
  requireAccess,
  requireTenant,
  requireVerifiedTenants,
  rolesFromClaims,
  tenantFromClaims,
  type AccessRule,
} from '@slicekit/runtime/auth';
import { ConfigError } from '@slicekit/runtime/config';

const secret = 'a-test-secret-that-is-at-least-32-bytes-long';

function appWith(rule: AccessRule, rolesClaim?: string): Express {
  const app = express();
  app.use(authenticate({ jwtSecret: secret, ...(rolesClaim ? { rolesClaim } : {}) }));
  app.delete('/books/:id', requireAccess('Book', 'delete', rule), (req, res) => {
    res.json({ id: req.params.id, roles: req.user?.roles ?? null });
  });
  return app;
}

async function token(claims: JWTPayload): Promise<string> {
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('ada')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
  return `Bearer ${jwt}`;
}

describe('roles per operation', () => {
  describe('the roles claim', () => {
    it('reads a list, a dotted path, a URL-named claim, Cognito groups and a scope', () => {
      expect(rolesFromClaims({ roles: ['admin', 7, ''] }, 'roles')).to.deep.equal(['admin']);
      expect(
        rolesFromClaims({ realm_access: { roles: ['librarian'] } }, 'realm_access.roles'),
      ).to.deep.equal(['librarian']);
      const auth0 = { 'https://example.com/roles': ['clerk'], https: { x: 1 } };
      expect(rolesFromClaims(auth0, 'https://example.com/roles')).to.deep.equal(['clerk']);
      expect(rolesFromClaims({ 'cognito:groups': ['staff'] }, 'cognito:groups')).to.deep.equal([
        'staff',
      ]);
      expect(rolesFromClaims({ scope: ' books:read  books:write ' }, 'scope')).to.deep.equal([
        'books:read',
        'books:write',
      ]);
    });

    it('prefers a claim of the whole name to a dotted path of the same spelling', () => {
      const claims = { 'realm_access.roles': ['exact'], realm_access: { roles: ['nested'] } };
      expect(rolesFromClaims(claims, 'realm_access.roles')).to.deep.equal(['exact']);
    });

    it('grants nothing for a missing claim or one of another shape', () => {
      expect(rolesFromClaims({}, 'roles')).to.deep.equal([]);
      expect(rolesFromClaims({ roles: { admin: true } }, 'roles')).to.deep.equal([]);
      expect(rolesFromClaims({ realm_access: 'admin' }, 'realm_access.roles')).to.deep.equal([]);
      expect(rolesFromClaims({ roles: ['x'] }, 'constructor.name')).to.deep.equal([]);
    });

    it('reads AUTH_ROLES_CLAIM, and stops the app on one that cannot name a claim', () => {
      expect(authOptionsFromEnv({ AUTH_ROLES_CLAIM: 'realm_access.roles' }).rolesClaim).to.equal(
        'realm_access.roles',
      );
      expect(authOptionsFromEnv({ AUTH_ROLES_CLAIM: '  ' }).rolesClaim).to.equal(undefined);
      for (const bad of ['realm access', 'realm_access..roles', '.roles']) {
        expect(() => authOptionsFromEnv({ AUTH_ROLES_CLAIM: bad }), bad).to.throw(
          ConfigError,
          /AUTH_ROLES_CLAIM/,
        );
      }
      expect(() => authenticate({ jwtSecret: secret, rolesClaim: 'a..b' })).to.throw(
        AuthConfigError,
        /empty step/,
      );
    });
  });

  describe('requireAccess', () => {
    it('answers 401 to an anonymous caller, with the Bearer challenge', async () => {
      const res = await request(appWith(['admin'])).delete('/books/1');
      expect(res.status).to.equal(401);
      expect(res.headers['www-authenticate']).to.equal('Bearer');
      expect(res.body).to.include({ code: 'auth.unauthorized' });
    });

    it('answers 403 auth.forbidden naming the operation to a caller without the role', async () => {
      const res = await request(appWith(['admin']))
        .delete('/books/1')
        .set('authorization', await token({ roles: ['member'] }));
      expect(res.status).to.equal(403);
      expect(res.type).to.equal('application/problem+json');
      expect(res.body).to.include({ code: 'auth.forbidden', operation: 'delete', status: 403 });
      expect(res.body.detail).to.equal("the caller's roles do not allow delete on Book");
    });

    it('lets a caller holding one of the roles through, from the claim the app names', async () => {
      const app = appWith(['admin', 'librarian'], 'realm_access.roles');
      const res = await request(app)
        .delete('/books/1')
        .set('authorization', await token({ realm_access: { roles: ['librarian'] } }));
      expect(res.status).to.equal(200);
      expect(res.body.roles).to.deep.equal(['librarian']);
    });

    it('lets any verified caller through `authenticated`, and anyone through `anyone`', async () => {
      const caller = await token({});
      expect((await request(appWith('authenticated')).delete('/books/1')).status).to.equal(401);
      const authenticated = request(appWith('authenticated'));
      expect((await authenticated.delete('/books/1').set('authorization', caller)).status).to.equal(
        200,
      );
      expect((await request(appWith('anyone')).delete('/books/1')).status).to.equal(200);
    });
  });
});

describe('the tenant claim', () => {
  function tenantApp(tenantClaim?: string): Express {
    const app = express();
    app.use(authenticate({ jwtSecret: secret, ...(tenantClaim ? { tenantClaim } : {}) }));
    app.get(
      '/books',
      requireAccess('Book', 'list', 'anyone'),
      requireTenant('Book'),
      (req, res) => {
        res.json({ tenant: req.user?.tenant });
      },
    );
    return app;
  }

  it('reads text exactly as given or a whole number, by whole name first, then a dotted path', () => {
    expect(tenantFromClaims({ tenant: 'acme ' }, 'tenant')).to.equal('acme ');
    expect(tenantFromClaims({ app_metadata: { org: 7 } }, 'app_metadata.org')).to.equal('7');
    expect(tenantFromClaims({ 'custom:tenant': 'ACME' }, 'custom:tenant')).to.equal('ACME');
    for (const value of ['', '  ', ['acme'], 1.5, null, { id: 'acme' }]) {
      expect(tenantFromClaims({ tenant: value } as JWTPayload, 'tenant'), String(value)).to.equal(
        undefined,
      );
    }
  });

  it('answers 401 to an anonymous caller and 403 auth.tenant_required to a token without it', async () => {
    const app = tenantApp('https://example.com/tenant');
    const anonymous = await request(app).get('/books');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers['www-authenticate']).to.equal('Bearer');
    const without = await request(app)
      .get('/books')
      .set('authorization', await token({ tenant: 'acme' }));
    expect(without.status).to.equal(403);
    expect(without.body).to.include({ code: 'auth.tenant_required', entity: 'Book' });
    const named = await request(app)
      .get('/books')
      .set('authorization', await token({ 'https://example.com/tenant': 'ACME' }));
    expect(named.body).to.deep.equal({ tenant: 'ACME' });
  });

  it('refuses to start tenant slices without token verification, naming them and the settings', () => {
    const slices = [{ name: 'books' }, { name: 'loans', tenant: true }];
    expect(() => requireVerifiedTenants(slices, {})).to.throw(
      AuthConfigError,
      /rows of loans belong to tenants.*set AUTH_JWT_SECRET or AUTH_JWKS_URL/,
    );
    expect(() => requireVerifiedTenants(slices, { jwtSecret: secret })).not.to.throw();
    expect(() => requireVerifiedTenants([{ name: 'books' }], {})).not.to.throw();
  });

  it('reads AUTH_TENANT_CLAIM, refusing one with white space or an empty step', () => {
    expect(authOptionsFromEnv({ AUTH_TENANT_CLAIM: ' org.id ' }).tenantClaim).to.equal('org.id');
    expect(authOptionsFromEnv({}).tenantClaim).to.equal(undefined);
    for (const bad of ['org..id', 'org id']) {
      expect(() => authOptionsFromEnv({ AUTH_TENANT_CLAIM: bad })).to.throw(
        ConfigError,
        /AUTH_TENANT_CLAIM/,
      );
    }
    expect(() => authenticate({ jwtSecret: secret, tenantClaim: 'a..b' })).to.throw(
      AuthConfigError,
      /tenantClaim/,
    );
  });
});
