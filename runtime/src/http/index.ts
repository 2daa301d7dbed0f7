// HTTP helpers shared by every runtime area: problem details and entity tags.
export * from './problem.js';
export * from './entity-tag.js';
