// Name forms: the one place identifiers are split into words and re-cased, so every template sees
// names normalised once, before rendering.
import pluralizeWord from 'pluralize';

/**
 * The words of an identifier in any style: `ChangePrice`, `change-price`, `isDiscontinued`. An
 * acronym stays one word (`XMLHttpRequest` is xml, http, request), and so does a single capital
 * before a capitalised word (`OAuth2Token` is oauth2, token).
 */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]{2,})([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

const upperFirst = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

/** `change price` -> `ChangePrice`. */
export const pascalCase = (name: string): string => words(name).map(upperFirst).join('');
/** `ChangePrice` -> `changePrice`. */
export const camelCase = (name: string): string => {
  const pascal = pascalCase(name);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
};
/** `ChangePrice` -> `change-price`. */
export const kebabCase = (name: string): string => words(name).join('-');
/** `isDiscontinued` -> `is_discontinued`; the column of a property. */
export const snakeCase = (name: string): string => words(name).join('_');
/** `isDiscontinued` -> `is discontinued`; for comments and messages. */
export const sentenceCase = (name: string): string => words(name).join(' ');

/**
 * English plural of a PascalCase entity name, the last word only (`Category` -> `Categories`,
 * `OrderAnalysis` -> `OrderAnalyses`, `Sheep` -> `Sheep`), by the `pluralize` library's rules.
 */
export function pluralize(name: string): string {
  const parts = words(name);
  const last = parts.pop() ?? '';
  return pascalCase([...parts, pluralizeWord.plural(last)].join(' '));
}

/**
 * The name after its indefinite article, by its first sound as far as spelling tells it: `an
 * Order`, `an enum`, `a product`, `a url`, `a uuid`, `a unit` (a `u` read as "you" takes `a`).
 *
 * @example
 * withArticle('order line') // 'an order line'
 */
export const withArticle = (text: string): string =>
  `${/^(?:[aeio]|u(?!r|s|u|ni|ti))/i.test(text) ? 'an' : 'a'} ${text}`;

/** Every form of one name, computed once. */
export interface NameForms {
  pascal: string;
  camel: string;
  kebab: string;
  snake: string;
  words: string;
}

export function nameForms(name: string): NameForms {
  return {
    pascal: pascalCase(name),
    camel: camelCase(name),
    kebab: kebabCase(name),
    snake: snakeCase(name),
    words: sentenceCase(name),
  };
}
