// Handlebars helpers slicekit registers on plop: the name forms of generators/names.ts, for
// templates (and app-local generators) that need a name in another case.
import type { NodePlopAPI } from 'plop';
import { camelCase, kebabCase, pascalCase, pluralize, snakeCase } from './names.js';

const helpers: Record<string, (text: string) => string> = {
  slicekitPascal: pascalCase,
  slicekitCamel: camelCase,
  slicekitKebab: kebabCase,
  slicekitSnake: snakeCase,
  slicekitPlural: pluralize,
};

/** Registers the helpers once per plop instance. */
export function registerHelpers(plop: NodePlopAPI): void {
  const known = new Set(plop.getHelperList());
  for (const [name, fn] of Object.entries(helpers)) {
    if (!known.has(name)) plop.setHelper(name, (text: unknown) => fn(String(text ?? '')));
  }
}
