// HTTP helpers shared by every runtime area: problem details and their kinds, entity tags, client
// errors, 405 for a known path, the query string parsed once.
export * from './problem.js';
export * from './problem-kinds.js';
export * from './method-not-allowed.js';
export * from './entity-tag.js';
export * from './client-error.js';
export * from './socket-error.js';
export * from './query.js';
