// Handlebars helpers and partials slicekit registers on plop: the name forms of generators/names.ts
// for templates (and app-local generators) that need a name in another case, values printed as
// TypeScript source, and the entity templates' partials.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Handlebars from 'handlebars';
import type { NodePlopAPI } from 'plop';
import { literal, quote } from './entity/literal.js';
import { camelCase, kebabCase, pascalCase, pluralize, snakeCase, withArticle } from './names.js';
import { defaultOptions, loadPrecompiled, templateKey, type TemplateSpec } from './precompiled.js';

const nameHelpers: Record<string, (text: string) => string> = {
  slicekitPascal: pascalCase,
  slicekitCamel: camelCase,
  slicekitKebab: kebabCase,
  slicekitSnake: snakeCase,
  slicekitPlural: pluralize,
  /** `{{slicekitA entity.pascal}}`: `a Product`, `an Order`. */
  slicekitA: withArticle,
};

/** `{{{slicekitLiteral value}}}` prints any value as a TypeScript expression, `{{{slicekitQuote text}}}` a string. */
const valueHelpers: Record<string, (value: unknown) => string> = {
  slicekitLiteral: literal,
  slicekitQuote: (text) => quote(String(text ?? '')),
  /** `{{slicekitStep by}}`: `+ 1` or `- 2`, a step's operator and amount. */
  slicekitStep: (by) => (Number(by) < 0 ? `- ${-Number(by)}` : `+ ${Number(by)}`),
};

/**
 * The entity templates' partials: templates/entity/partials/<name>.hbs is `{{> entity/<name>}}`.
 * Each draws one code-shaped piece (a column, an assignment, a property) from the data a view
 * gives it; the folder is not a template of its own (templateFiles() skips it).
 */
export const ENTITY_PARTIALS = fileURLToPath(
  new URL('../templates/entity/partials/', import.meta.url),
);

/** The templates a Handlebars instance takes from the build, and those it compiled. */
interface CompiledTemplates {
  built: Readonly<Record<string, TemplateSpec>>;
  compiled: Map<string, HandlebarsTemplateDelegate>;
}

/**
 * Plop's `renderString` compiles the template, and every partial (registered again as text before
 * each render), on each call: over a slice's dozen files, and again for each entity of a run, that
 * is most of the rendering time. Handlebars resolves helpers and partials when a compiled template
 * runs, not when it compiles, so the same text compiled with the same options is the same template:
 * plop's Handlebars instance keeps what it compiled, by text and options.
 */
export function compileOnce(
  handlebars: typeof Handlebars,
  built?: Readonly<Record<string, TemplateSpec>>,
): void {
  const marked = handlebars as typeof Handlebars & { slicekitTemplates?: CompiledTemplates };
  if (marked.slicekitTemplates) {
    // Plop shares one Handlebars in a process: other compiled templates replace the ones kept.
    if (built) marked.slicekitTemplates = { built, compiled: new Map() };
    return;
  }
  marked.slicekitTemplates = { built: built ?? loadPrecompiled(), compiled: new Map() };
  const compile = handlebars.compile.bind(handlebars);
  // The build's compiled templates (precompiled.ts): a template whose text is there is not
  // compiled again.
  const fromBuild = (input: string, options?: CompileOptions) => {
    const spec = defaultOptions(options)
      ? marked.slicekitTemplates!.built[templateKey(input)]
      : undefined;
    try {
      return spec ? handlebars.template(spec) : undefined;
    } catch {
      return undefined; // compiled by another Handlebars revision than plop's: compile it here
    }
  };
  handlebars.compile = ((input: unknown, options?: CompileOptions) => {
    if (typeof input !== 'string') return compile(input, options);
    const { compiled } = marked.slicekitTemplates!;
    const key = `${JSON.stringify(options ?? {})}\u0000${input}`;
    let template = compiled.get(key);
    if (!template) {
      template = fromBuild(input, options) ?? compile(input, options);
      compiled.set(key, template);
    }
    return template;
  }) as typeof handlebars.compile;
}

/** Registers the helpers and partials once per plop instance; templates compile once. */
export function registerHelpers(plop: NodePlopAPI): void {
  compileOnce((plop as NodePlopAPI & { handlebars: typeof Handlebars }).handlebars);
  const known = new Set(plop.getHelperList());
  for (const [name, fn] of Object.entries(nameHelpers)) {
    if (!known.has(name)) plop.setHelper(name, (text: unknown) => fn(String(text ?? '')));
  }
  // Handlebars passes its options object last: a helper reads only the value before it.
  for (const [name, fn] of Object.entries(valueHelpers)) {
    if (!known.has(name)) plop.setHelper(name, (value: unknown) => fn(value));
  }
  const partials = new Set(plop.getPartialList());
  for (const file of readdirSync(ENTITY_PARTIALS).filter((f) => f.endsWith('.hbs'))) {
    const name = `entity/${file.slice(0, -'.hbs'.length)}`;
    if (!partials.has(name))
      plop.setPartial(name, readFileSync(join(ENTITY_PARTIALS, file), 'utf8'));
  }
}
