// Plop generators of this app: `npx plop entity` adds a vertical slice (see slicekit's docs).
import { entity } from 'slicekit/plop';

export default function plopfile(plop) {
  entity(plop);
}
