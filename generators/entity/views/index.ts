// Which view each entity template renders with: one small view per template (the files beside
// this one), each the slice's base (base.ts, computed once per run) and what its file needs.
import type { EntityModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { adminView } from './admin.js';
import { dtoView } from './dto.js';
import { entityClassView } from './entity-class.js';
import { eventsView } from './events.js';
import { handlersView } from './handlers.js';
import { migrationView } from './migration.js';
import { referenceDataView } from './reference-data.js';
import { requestsView } from './requests.js';
import { openApiView, routesView } from './routes.js';
import { seedView } from './seed.js';
import { sequencesView } from './sequences.js';
import { sliceTestView } from './slice-test.js';
import { tableView } from './table.js';

export { sliceBase, type SliceBase } from './base.js';

/** What a view may read besides the model. */
export interface ViewOptions {
  /** The create migration's name: `20240501093000_create_products`. */
  migrationName: string;
  /** The spec as saved beside the slice. */
  specText: string;
}

type View = (model: EntityModel, base: SliceBase, options: ViewOptions) => object;

const SLICE = 'src/slices/__folder__/__entity.kebab__';

/** Each template (its path under templates/entity/) and its view. */
const views: Record<string, View> = {
  'migrations/__migrationName__.ts.hbs': (model, base, o) =>
    migrationView(model, base, o.migrationName),
  'admin/src/resources/__entity.kebab__.tsx.hbs': adminView,
  'seeds/__folder__.ts.hbs': seedView,
  [`${SLICE}.dto.ts.hbs`]: dtoView,
  [`${SLICE}.entity.ts.hbs`]: entityClassView,
  [`${SLICE}.entity.yaml.hbs`]: (_, base, o) => ({ ...base, specText: o.specText }),
  [`${SLICE}.events.ts.hbs`]: eventsView,
  [`${SLICE}.handlers.ts.hbs`]: handlersView,
  [`${SLICE}.openapi.ts.hbs`]: openApiView,
  [`${SLICE}.reference-data.ts.hbs`]: referenceDataView,
  [`${SLICE}.requests.ts.hbs`]: requestsView,
  [`${SLICE}.routes.ts.hbs`]: routesView,
  [`${SLICE}.sequences.ts.hbs`]: sequencesView,
  [`${SLICE}.table.ts.hbs`]: tableView,
  'src/slices/__folder__/index.ts.hbs': (_, base) => base,
  'test/__folder__.test.ts.hbs': sliceTestView,
};

/** The templates that have a view (the generator's test checks them against templates/entity/). */
export function viewedTemplates(): string[] {
  return Object.keys(views).sort();
}

/** The view `template` (a path under templates/entity/, `/`-separated) renders with. */
export function templateView(
  template: string,
  model: EntityModel,
  base: SliceBase,
  options: ViewOptions,
): object {
  const view = views[template];
  if (!view) throw new Error(`templates/entity/${template} has no view in generators/entity/views`);
  return view(model, base, options);
}
