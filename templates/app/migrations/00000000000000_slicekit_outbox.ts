// The outbox table: events are written to it in the transaction of the change that raised them,
// then delivered to the subscribers of src/events.ts (at least once, surviving a crash).
import { outboxMigration } from '@slicekit/runtime/events';

export const { up, down } = outboxMigration();
