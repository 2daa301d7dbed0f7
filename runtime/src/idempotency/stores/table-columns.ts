// The columns the key table of the PostgreSQL and MySQL stores gained after its first release.
// A new table has them from the start; the upgrade migration adds those an older table lacks, and
// a store refuses to start on a table still missing one (see docs/stores.md, "Upgrading").

/** Added columns, oldest first: each is nullable text, so a row written before it reads null. */
export const ADDED_COLUMNS = ['fingerprint', 'response_headers'] as const;

export type AddedColumn = (typeof ADDED_COLUMNS)[number];
