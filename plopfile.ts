// slicekit's Plop generators: `app` creates an app, `entity` adds a vertical slice to one.
// A generated app's plopfile imports `entity` from `slicekit/plop` (bin/generators.js, which
// loads this file).
import type { NodePlopAPI } from 'plop';
import { registerAppGenerator } from './generators/app/index.js';
import { registerEntityGenerator } from './generators/entity/index.js';

export { registerAppGenerator as app, registerEntityGenerator as entity };

/** Registers both generators; `npx plop` in this repository runs this. */
export default function slicekit(plop: NodePlopAPI): void {
  registerAppGenerator(plop);
  registerEntityGenerator(plop);
}
