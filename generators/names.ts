// Name forms: the one place identifiers are split into words and re-cased, so every template sees
// names normalised once, before rendering.

/** The words of an identifier in any style: `ChangePrice`, `change-price`, `isDiscontinued`. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
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

const irregular: Record<string, string> = {
  person: 'people',
  child: 'children',
  man: 'men',
  woman: 'women',
  mouse: 'mice',
  goose: 'geese',
  foot: 'feet',
  tooth: 'teeth',
};

/** English plural of a PascalCase entity name (`Category` -> `Categories`); the last word only. */
export function pluralize(name: string): string {
  const parts = words(name);
  const last = parts.pop() ?? '';
  let plural: string;
  if (irregular[last]) plural = irregular[last];
  else if (/[^aeiou]y$/.test(last)) plural = `${last.slice(0, -1)}ies`;
  else if (/(s|x|z|ch|sh)$/.test(last)) plural = `${last}es`;
  else plural = `${last}s`;
  return pascalCase([...parts, plural].join(' '));
}

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
