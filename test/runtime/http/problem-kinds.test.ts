// The problem kinds are declared once (problemKinds) and documented in docs/problems.md; each kind
// the runtime builds carries every member of the one problem shape, in order.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  HttpProblemCode,
  PROBLEM_TYPE_PREFIX,
  problemDetails,
  ProblemError,
  problemKinds,
  sendProblem,
  shapeProblem,
  type ProblemCode,
  type ProblemKind,
} from '@slicekit/runtime/http';
import { DatabaseProblemCode } from '@slicekit/runtime/database';
import { IdempotencyProblemType } from '@slicekit/runtime/idempotency';

const root = join(import.meta.dirname, '..', '..', '..');
const docs = readFileSync(join(root, 'docs/problems.md'), 'utf8');

/** The TypeScript sources under `dir`, at any depth, with their text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: join(dir, file), text: readFileSync(join(root, dir, file), 'utf8') }));
}
const codes = Object.keys(problemKinds) as ProblemCode[];
const kind = (code: ProblemCode) => problemKinds[code] as ProblemKind;
const statusText = (code: ProblemCode) => {
  const { statuses } = kind(code);
  return Array.isArray(statuses) ? statuses.join(', ') : statuses;
};
const STANDARD = ['type', 'title', 'status', 'detail', 'instance', 'code'];

describe('problem kinds', () => {
  it('documents every code in docs/problems.md with its status and type', () => {
    const rows = new Map(
      docs
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map((cells) => [cells[1]!.replace(/`/g, ''), cells] as const),
    );
    const undocumented = codes.filter((code) => {
      const cells = rows.get(code);
      return cells?.[2] !== statusText(code) || cells[3] !== `\`${kind(code).type}\``;
    });
    expect(undocumented).to.deep.equal([]);
  });

  it('declares every code a source of the runtime or the app writes into a problem', () => {
    const written = new Map<string, string>();
    for (const { file, text } of [...sources('runtime/src'), ...sources('templates/app/src')]) {
      // Problems are built by kind (type-checked against ProblemCode), or by hand as JSON.
      const byKind = text.matchAll(/(?:problemDetails|ProblemError\.of)\(\s*'([^']+)'/g);
      const byHand = /problem\+json|PROBLEM_CONTENT_TYPE|sendProblem/.test(text)
        ? text.matchAll(/\bcode: '([^']+)'/g)
        : [];
      for (const [, code] of [...byKind, ...byHand]) written.set(code!, file);
    }
    expect(written.size).to.be.greaterThan(10);
    const undeclared = [...written].filter(([code]) => !codes.includes(code as ProblemCode));
    expect(undeclared).to.deep.equal([]);
  });

  it('gives each kind its own type under the runtime prefix', () => {
    const types = codes.map((code) => kind(code).type);
    expect(new Set(types).size).to.equal(types.length);
    for (const type of types) expect(type).to.match(/^urn:slicekit:problem:[a-z][a-z-]*$/);
    expect(PROBLEM_TYPE_PREFIX).to.equal('urn:slicekit:problem:');
  });

  it('declares the codes the areas name', () => {
    const named = [
      ...Object.values(HttpProblemCode),
      ...Object.values(DatabaseProblemCode),
    ] as string[];
    expect(named.filter((code) => !codes.includes(code as ProblemCode))).to.deep.equal([]);
    const types = codes.map((code) => kind(code).type) as string[];
    expect(Object.values(IdempotencyProblemType).filter((t) => !types.includes(t))).to.deep.equal(
      [],
    );
  });

  it('builds every kind with the standard members in order, then its own', () => {
    for (const code of codes) {
      const { statuses, extensions } = kind(code);
      const status = Array.isArray(statuses) ? statuses[statuses.length - 1]! : 418;
      const own = Object.fromEntries(extensions.map((member) => [member, `a ${member}`]));
      const problem = problemDetails(code, { status, detail: 'why', instance: '/x?y=1', ...own });
      expect(Object.keys(problem), code).to.deep.equal([...STANDARD, ...extensions]);
      expect(problem, code).to.include({ type: kind(code).type, status, code, instance: '/x?y=1' });
      expect(problem.title, code).to.be.a('string').and.not.equal('Error');
    }
  });

  it('needs the status of a kind that has several', () => {
    expect(() => problemDetails('crud.rule_violation', { detail: 'no' })).to.throw(
      /needs its status/,
    );
    expect(
      ProblemError.of('crud.rule_violation', 'no', { rule: 'r' }, { status: 422 }).status,
    ).to.equal(422);
  });

  it('gives a ProblemError without a code the generic one of its status', () => {
    expect(new ProblemError(429, 'slow down').toProblem('/a')).to.deep.equal({
      type: 'urn:slicekit:problem:client-error',
      title: 'Too Many Requests',
      status: 429,
      detail: 'slow down',
      instance: '/a',
      code: 'http.client_error',
    });
    expect(new ProblemError(502, 'upstream').code).to.equal('http.server_error');
    const own = new ProblemError(409, 'full', {
      code: 'shop.full',
      type: 'https://shop.test/full',
    });
    expect(own.toProblem()).to.include({ type: 'https://shop.test/full', code: 'shop.full' });
    expect(shapeProblem({ title: '', status: 409, code: 'shop.other' }).type).to.equal(
      'about:blank',
    );
  });

  it('sends a problem made by hand in the one shape, with the request URL as instance', async () => {
    const app = express();
    app.get('/orders/:id', (_req, res) => {
      sendProblem(res, {
        title: '',
        status: 409,
        detail: 'taken',
        fields: ['sku'],
        code: 'crud.duplicate',
      });
    });
    const res = await request(app).get('/orders/7?view=full');
    expect(res.status).to.equal(409);
    expect(res.type).to.equal('application/problem+json');
    expect(res.text).to.equal(
      JSON.stringify({
        type: 'urn:slicekit:problem:duplicate',
        title: 'Conflict',
        status: 409,
        detail: 'taken',
        instance: '/orders/7?view=full',
        code: 'crud.duplicate',
        fields: ['sku'],
      }),
    );
  });
});
