// @slicekit/runtime/events: transactional outbox and typed in-process subscribers (docs/events.md).
export * from './bus.js';
export * from './declared.js';
export * from './dialect.js';
export * from './errors.js';
export { onEventsCommitted } from './after-commit.js';
export * from './migration.js';
export * from './options.js';
export * from './record.js';
export * from './types.js';
export * from './relay.js';
export * from './broker/settings.js';
