// Prints values as TypeScript source: identifier keys bare, strings single-quoted. Templates reach
// it as the `slicekitLiteral` and `slicekitQuote` helpers (../helpers.ts); Prettier lays the
// result out afterwards.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** `value` as a TypeScript expression. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined,
    );
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : quote(k)}: ${literal(v)}`).join(', ')} }`;
  }
  return String(value);
}
