// The idempotency key table on PostgreSQL and MySQL: where the guard of src/idempotency.ts keeps
// keys, shared by every instance of the app. On SQLite it creates nothing (keys stay in memory).
import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';

export const { up, down } = idempotencyKeysMigration();
