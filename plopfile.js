// What `npx plop` finds at the repository root: the generators of plopfile.ts, loaded through
// bin/generators.js so that Node 20, which cannot import TypeScript itself, runs them too.
export { default } from './bin/generators.js';
