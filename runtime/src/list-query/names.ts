// Field-name normalisation: camelCase, PascalCase, snake_case and kebab-case spellings of a DTO
// property resolve to one key, case-insensitively.

/** The lookup key of a field name: separators dropped, lower-cased (`Created_On` -> `createdon`). */
export function fieldKey(name: string): string {
  return name.replace(/[_-]/g, '').toLowerCase();
}

export { snakeCase } from '../sql/index.js';

/** A field name as it is safe to echo in a problem: bounded and printable. */
export function shown(text: string, max = 60): string {
  const printable = [...text].map((c) => (c < ' ' || c === '\u007f' ? '?' : c)).join('');
  return printable.length > max ? `${printable.slice(0, max)}...` : printable;
}
