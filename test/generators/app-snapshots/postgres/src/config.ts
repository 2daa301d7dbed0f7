// Settings read from the environment once, with the defaults this app was generated with.

/** Where the data lives: a SQLite file path, or a `postgres://` or `mysql://` URL. */
export const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/shop';

/** TCP port the server listens on. */
export const port = Number(process.env.PORT || 3000);

/** pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
export const logLevel = process.env.LOG_LEVEL || 'info';
