// The databases an app can be generated for, as data: what differs in behaviour lives in the
// runtime's dialect objects (runtime/src/sql/dialects/).
export const databases = ['sqlite', 'postgres', 'mysql'] as const;
export type Database = (typeof databases)[number];

// Per database, data only: the driver package, its name in the app's README, whether its install
// script must run (SQLite's driver fetches or compiles its native binding), and DATABASE_URL's
// default for an app (`{name}`: the app's name, `{database}`: its database name).
export const drivers: Record<
  Database,
  { package: string; label: string; installScript: boolean; defaultUrl: string }
> = {
  sqlite: {
    package: 'better-sqlite3',
    label: 'SQLite',
    installScript: true,
    defaultUrl: 'data/{name}.sqlite',
  },
  postgres: {
    package: 'pg',
    label: 'PostgreSQL',
    installScript: false,
    defaultUrl: 'postgres://postgres@127.0.0.1:5432/{database}',
  },
  mysql: {
    package: 'mysql2',
    label: 'MySQL / MariaDB',
    installScript: false,
    defaultUrl: 'mysql://root@127.0.0.1:3306/{database}',
  },
};
