// HTTP helpers shared by every runtime area: problem details.
export * from './problem.js';
