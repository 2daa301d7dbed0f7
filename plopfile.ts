// slicekit's Plop generators: `app` creates an app, `entity` adds a vertical slice to one.
// A generated app's plopfile imports `entity` from `slicekit/plop` (this file, compiled to dist/).
import type { NodePlopAPI } from 'plop';
import { registerAppGenerator } from './generators/app.js';

export { registerAppGenerator as app };

/** Registers both generators; `npx plop` in this repository runs this. */
export default function slicekit(plop: NodePlopAPI): void {
  registerAppGenerator(plop);
}
