// Settings read from the environment once, with the defaults this app was generated with.
import { authOptionsFromEnv, type AuthOptions } from '@slicekit/runtime/auth';

/** The app's name: the title of its OpenAPI document. */
export const appName = 'shop';

/** Where the data lives: a SQLite file path, or a `postgres://` or `mysql://` URL. */
export const databaseUrl = process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/shop';

/** TCP port the server listens on. */
export const port = Number(process.env.PORT || 3000);

/** pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
export const logLevel = process.env.LOG_LEVEL || 'info';

/**
 * Bearer-JWT verification (src/auth.ts), from AUTH_JWT_SECRET or AUTH_JWKS_URL, AUTH_ISSUER,
 * AUTH_AUDIENCE, AUTH_USER_CLAIM and AUTH_REQUIRED. With neither secret nor JWKS URL every caller
 * is anonymous.
 */
export const authSettings: AuthOptions = authOptionsFromEnv(process.env);
