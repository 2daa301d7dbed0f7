// The outbox columns that let an event leave the process: its UUID (the broker message id), the
// trace it was recorded in, and which part of its delivery is done. Events recorded before it get
// their UUID when first delivered.
import { outboxEventIdMigration } from '@slicekit/runtime/events';

export const { up, down } = outboxEventIdMigration();
