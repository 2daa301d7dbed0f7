// DEMO=shop-secure: the shop per tenant with roles (docs/examples/shop-secure/). The demo signs
// the tokens to try it with: AUTH_JWT_SECRET when given (at least 32 bytes), else a secret made
// for this run and printed, so a first run needs no setup and the app still verifies every token.
import { randomBytes } from 'node:crypto';
import { mintToken, secretProblem, type DemoCaller } from './demo-token.js';

/** What the secure demo adds to the app's environment, and the secret its tokens are signed with. */
export interface SecureSetup {
  env: NodeJS.ProcessEnv;
  secret: string;
  /** The secret was made for this run (AUTH_JWT_SECRET was not set). */
  generated: boolean;
  /** The tenant of the seeded rows: SEED_TENANT, default ACME, as the seeds read it. */
  tenant: string;
}

/**
 * The secret and settings the secure demo runs with; a secret that is set but too short stops it
 * (the app would refuse it), naming the variable.
 */
export function secureSetup(env: NodeJS.ProcessEnv): SecureSetup {
  const given = env.AUTH_JWT_SECRET;
  const problem = given === undefined || given === '' ? undefined : secretProblem(given);
  if (problem) {
    console.error(`demo: ${problem}; set a longer one, or unset it to get one made for this run`);
    process.exit(1);
  }
  const secret = given || randomBytes(32).toString('base64url');
  return {
    // AUTH_REQUIRED turns anonymous callers away everywhere; the user's own value wins.
    env: { AUTH_JWT_SECRET: secret, AUTH_REQUIRED: env.AUTH_REQUIRED || 'true' },
    secret,
    generated: !given,
    tenant: env.SEED_TENANT || 'ACME',
  };
}

/** The demo's three callers: an admin and a clerk of the seeded tenant, a clerk of another. */
export function demoCallers(tenant: string): Record<'ADMIN' | 'CLERK' | 'OTHER', DemoCaller> {
  const other = tenant.toLowerCase() !== tenant ? tenant.toLowerCase() : `${tenant}-2`;
  return {
    ADMIN: { user: 'ada', roles: ['admin'], tenant },
    CLERK: { user: 'carl', roles: ['clerk'], tenant },
    OTHER: { user: 'olga', roles: ['clerk'], tenant: other },
  };
}

type FirstRow = <T>(resource: string, token: string, filter?: string) => Promise<T | undefined>;

/** The banner of the secure shop: its tokens as shell variables, then requests using them. */
export async function secureBanner(
  setup: SecureSetup,
  env: NodeJS.ProcessEnv,
  base: string,
  databaseUrl: string,
  adminLine: string,
  firstRow: FirstRow,
): Promise<string> {
  const callers = demoCallers(setup.tenant);
  const tokens = Object.fromEntries(
    Object.entries(callers).map(([name, caller]) => [name, mintToken(setup.secret, caller, env)]),
  ) as Record<keyof typeof callers, string>;
  const order = await firstRow<{ id: string }>('orders', tokens.ADMIN, 'filter=status:Equal:draft');
  const customer = await firstRow<{ id: string }>('customers', tokens.ADMIN);
  const v1 = `${base}/v1`;
  const as = (name: string) => `-H "authorization: Bearer $${name}"`;
  const json = "-H 'content-type: application/json'";
  const patch = "-H 'content-type: application/merge-patch+json'";
  const customerId = customer?.id ?? '<customer id>';
  const orderId = order?.id ?? '<order id>';
  const describe = (c: DemoCaller) => `${c.user}, roles ${c.roles.join(' ')}, tenant ${c.tenant}`;
  const lines = [
    ...Object.entries(tokens).map(
      ([name, token]) =>
        `export ${name}='${token}'   # ${describe(callers[name as keyof typeof callers])}`,
    ),
    `curl -s ${v1}/orders ${as('ADMIN')}   # every order of ${setup.tenant}`,
    `curl -s ${v1}/orders ${as('CLERK')}   # only the orders carl created`,
    `curl -s -X POST ${v1}/customers ${as('CLERK')} ${json} -d '{"email":"ana@example.com","name":"Ana Souza"}'`,
    `curl -s -X POST ${v1}/orders ${as('CLERK')} ${json} -d '{"customerId":"${customerId}","note":"Wrap it"}'`,
    `curl -s ${v1}/customers/${customerId} ${as('OTHER')}   # 404: another tenant's row`,
    `curl -s -X PATCH ${v1}/customers/${customerId} ${as('CLERK')} ${patch} -d '{"name":"Ana S."}'`,
    `curl -s -X DELETE -i ${v1}/customers/${customerId} ${as('CLERK')}   # 403: deleting takes an admin`,
    `curl -s -X DELETE -i ${v1}/orders/${orderId} ${as('ADMIN')}   # a soft delete, with its lines`,
    `curl -s '${v1}/orders?deleted=only' ${as('ADMIN')}`,
    `curl -s -X POST ${v1}/orders/${orderId}/restore ${as('ADMIN')}`,
  ];
  const secretLine = setup.generated
    ? `demo: AUTH_JWT_SECRET was not set: this run signs with one made for it, ${setup.secret}\n` +
      '      (set AUTH_JWT_SECRET, 32 bytes or more, to keep tokens valid across runs)\n'
    : 'demo: tokens signed with your AUTH_JWT_SECRET\n';
  return `
demo: the secure shop API is up at ${v1}/customers, /v1/orders, /v1/order-lines, /v1/tags (database: ${databaseUrl})
${secretLine}demo: mint another token with AUTH_JWT_SECRET='${setup.secret}' npm run -s demo:token -- <user> <role,role> <tenant>
${adminLine}Try:
${lines.map((line) => `  ${line}`).join('\n')}
Stop with Ctrl+C.`;
}
