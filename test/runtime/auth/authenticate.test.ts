// Bearer-JWT middleware: anonymous pass-through, required tokens, HS256 secrets and RS256 keys
// served by a local JWKS endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type Express } from 'express';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import request from 'supertest';
import {
  authenticate,
  authOptionsFromEnv,
  AuthConfigError,
  type AuthOptions,
} from '@slicekit/runtime/auth';

const secret = 'a-test-secret-that-is-at-least-32-bytes-long';

function appWith(options: AuthOptions): Express {
  const app = express();
  app.use(authenticate(options));
  app.get('/me', (req, res) => {
    res.json({ user: req.user ? { id: req.user.id } : null });
  });
  return app;
}

async function hs256(
  payload: JWTPayload,
  opts: { expiresIn?: string | number; key?: string } = {},
) {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  jwt.setExpirationTime(opts.expiresIn ?? '5m');
  return jwt.sign(new TextEncoder().encode(opts.key ?? secret));
}

describe('auth middleware', () => {
  describe('without verification configured', () => {
    it('lets anonymous callers through with no user', async () => {
      const res = await request(appWith({})).get('/me').expect(200);
      expect(res.body).to.deep.equal({ user: null });
    });

    it('ignores a token it has no way to verify', async () => {
      const res = await request(appWith({}))
        .get('/me')
        .set('Authorization', 'Bearer whatever')
        .expect(200);
      expect(res.body.user).to.equal(null);
    });

    it('refuses to require tokens it could not verify', () => {
      expect(() => authenticate({ required: true })).to.throw(
        AuthConfigError,
        /neither jwtSecret nor jwksUrl/,
      );
    });

    it('refuses a secret too short for HS256', () => {
      expect(() => authenticate({ jwtSecret: 'short' })).to.throw(AuthConfigError, /32 bytes/);
    });
  });

  describe('with an HS256 secret', () => {
    const app = appWith({ jwtSecret: secret, issuer: 'https://issuer.test', audience: 'slicekit' });
    const claims = { sub: 'user-1', iss: 'https://issuer.test', aud: 'slicekit' };

    it('sets req.user.id from the sub claim of a valid token', async () => {
      const res = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${await hs256(claims)}`)
        .expect(200);
      expect(res.body).to.deep.equal({ user: { id: 'user-1' } });
    });

    it('still lets anonymous callers through when tokens are optional', async () => {
      const res = await request(app).get('/me').expect(200);
      expect(res.body.user).to.equal(null);
    });

    it('answers 401 problem+json to an expired token', async () => {
      const token = await hs256(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
      const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(401);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 401, title: 'Unauthorized' });
      expect(res.body.detail).to.match(/expired/);
      expect(res.headers['www-authenticate']).to.match(/^Bearer error="invalid_token"/);
    });

    it('answers 401 to a token signed with another secret', async () => {
      const token = await hs256(claims, { key: 'another-secret-that-is-also-32-bytes-long!!' });
      const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(401);
      expect(res.body.detail).to.match(/signature/);
    });

    it('answers 401 to a malformed token', async () => {
      const res = await request(app)
        .get('/me')
        .set('Authorization', 'Bearer not.a.jwt')
        .expect(401);
      expect(res.body.detail).to.match(/malformed/);
    });

    it('answers 401 to an Authorization header that is not a bearer token', async () => {
      const res = await request(app)
        .get('/me')
        .set('Authorization', 'Basic dXNlcjpwdw==')
        .expect(401);
      expect(res.body.detail).to.match(/not a bearer token/);
    });

    it('answers 401 to a token from another issuer or for another audience', async () => {
      const wrongIssuer = await hs256({ ...claims, iss: 'https://elsewhere.test' });
      const wrongAudience = await hs256({ ...claims, aud: 'other-api' });
      const a = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${wrongIssuer}`)
        .expect(401);
      expect(a.body.detail).to.match(/"iss"/);
      const b = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${wrongAudience}`)
        .expect(401);
      expect(b.body.detail).to.match(/"aud"/);
    });

    it('verifies HS256, HS384 and HS512 tokens in any order, each with its own hash', async () => {
      const signed = (alg: string, key = secret) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(key));
      for (const alg of ['HS512', 'HS256', 'HS384', 'HS512', 'HS256']) {
        await request(app)
          .get('/me')
          .set('Authorization', `Bearer ${await signed(alg)}`)
          .expect(200);
      }
      const forged = await signed('HS384', `${secret}-not-it`);
      const res = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${forged}`)
        .expect(401);
      expect(res.body.detail).to.match(/signature/);
    });

    it('answers 401 to an unsigned (alg none) token', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      await request(app).get('/me').set('Authorization', `Bearer ${header}.${body}.`).expect(401);
    });

    it('answers 401 to a valid token that names no caller', async () => {
      const token = await hs256({ iss: 'https://issuer.test', aud: 'slicekit' });
      const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(401);
      expect(res.body.detail).to.match(/"sub"/);
    });

    it('answers 401 to a token whose subject is blank, so it never becomes a principal', async () => {
      for (const sub of [' ', '   ', '\t']) {
        const token = await hs256({ ...claims, sub });
        const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`);
        expect(res.status, JSON.stringify(sub)).to.equal(401);
      }
    });

    it('keeps a subject exactly as the token names it', async () => {
      const token = await hs256({ ...claims, sub: 'ALICE ' });
      const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body.user).to.deep.equal({ id: 'ALICE ' });
    });

    it('reads the caller id from a configured claim', async () => {
      const custom = appWith({ jwtSecret: secret, userIdClaim: 'uid' });
      const token = await hs256({ sub: 'ignored', uid: 'user-7' });
      const res = await request(custom)
        .get('/me')
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      expect(res.body.user).to.deep.equal({ id: 'user-7' });
    });
  });

  describe('when authentication is required', () => {
    const app = appWith({ jwtSecret: secret, required: true });

    it('answers 401 with a Bearer challenge to a request without a token', async () => {
      const res = await request(app).get('/me').expect(401);
      expect(res.headers['www-authenticate']).to.equal('Bearer');
      expect(res.body).to.include({ status: 401 });
    });

    it('lets a caller with a valid token through', async () => {
      const res = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${await hs256({ sub: 'user-2' })}`)
        .expect(200);
      expect(res.body.user.id).to.equal('user-2');
    });
  });

  describe('with an RS256 key set served over HTTP', () => {
    let server: Server;
    let jwksUrl: string;
    let privateKey: CryptoKey;
    let strangerKey: CryptoKey;

    before(async () => {
      const pair = await generateKeyPair('RS256');
      const stranger = await generateKeyPair('RS256');
      privateKey = pair.privateKey;
      strangerKey = stranger.privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      server = createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });

    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const rs256 = (key: CryptoKey, kid = 'k1') =>
      new SignJWT({ sub: 'rsa-user' })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setExpirationTime('5m')
        .sign(key);

    it('verifies a token against the fetched key set', async () => {
      const res = await request(appWith({ jwksUrl, required: true }))
        .get('/me')
        .set('Authorization', `Bearer ${await rs256(privateKey)}`)
        .expect(200);
      expect(res.body.user).to.deep.equal({ id: 'rsa-user' });
    });

    it('answers 401 to a token signed by a key outside the set', async () => {
      const res = await request(appWith({ jwksUrl }))
        .get('/me')
        .set('Authorization', `Bearer ${await rs256(strangerKey)}`)
        .expect(401);
      expect(res.body.detail).to.match(/signature/);
    });

    it('answers 401 to a token naming an unknown key id', async () => {
      const res = await request(appWith({ jwksUrl }))
        .get('/me')
        .set('Authorization', `Bearer ${await rs256(strangerKey, 'k-unknown')}`)
        .expect(401);
      expect(res.body.detail).to.match(/unknown key/);
    });

    it('answers 401 to an HS256 token when only RSA keys are accepted', async () => {
      await request(appWith({ jwksUrl }))
        .get('/me')
        .set('Authorization', `Bearer ${await hs256({ sub: 'x' })}`)
        .expect(401);
    });

    it('answers 503, not 401, when the key set cannot be fetched', async () => {
      const errorsLogged: unknown[] = [];
      const logger = { warn: () => undefined, error: (obj: unknown) => errorsLogged.push(obj) };
      const app = appWith({ jwksUrl: 'http://127.0.0.1:9/jwks.json', logger });
      const res = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${await rs256(privateKey)}`)
        .expect(503);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(errorsLogged).to.have.length(1);
    });
  });

  describe('authOptionsFromEnv', () => {
    it('reads secret, issuer list, audience and required flag', () => {
      expect(
        authOptionsFromEnv({
          AUTH_JWT_SECRET: secret,
          AUTH_ISSUER: 'https://a.test, https://b.test',
          AUTH_AUDIENCE: 'api',
          AUTH_REQUIRED: 'true',
        }),
      ).to.deep.equal({
        jwtSecret: secret,
        issuer: ['https://a.test', 'https://b.test'],
        audience: 'api',
        required: true,
      });
    });

    it('gives anonymous options when nothing is set', () => {
      expect(authOptionsFromEnv({})).to.deep.equal({});
    });
  });
});
