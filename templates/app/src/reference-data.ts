// Fixed rows applied after every migration run, by `npm run migrate` and at start-up alike.
// Each set is inserted when its key is absent and never overwrites a row users changed.
import type { ReferenceDataSet } from '@slicekit/runtime/reference-data';

export const referenceData: readonly ReferenceDataSet[] = [];
