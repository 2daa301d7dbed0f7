// HTTP helpers shared by every runtime area: problem details, entity tags, client errors.
export * from './problem.js';
export * from './entity-tag.js';
export * from './client-error.js';
export * from './socket-error.js';
