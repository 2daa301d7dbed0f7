// Plain sample values of the field kinds and the helpers that keep a value inside a field's
// constraints. The generator proposes realistic values (a person's name, a product's, a small
// quantity) from a field's name and entity; a kind keeps a proposal that fits its constraints
// and falls back to these plain values otherwise.
import { createHash } from 'node:crypto';
import type { FieldConstraints } from './kind.js';

export const decimals = [249.5, 89.9, 24.99, 1299, 12.75, 540.2];
export const integers = [12, 3, 48, 7, 150, 1];

/** A UUID (version 4 layout) derived from `seed`, so it never changes between runs. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** `text` cut or padded to the length constraints. */
export function fitLength(text: string, c: FieldConstraints): string {
  let out = c.maxLength !== undefined ? text.slice(0, c.maxLength).trimEnd() : text;
  while (c.minLength !== undefined && out.length < c.minLength) out += 'x';
  return out;
}

/** `value` moved inside the minimum and maximum, with `scale` digits after the point. */
export function clamp(value: number, c: FieldConstraints, scale: number): number {
  let v = value;
  if (c.minimum !== undefined && v < c.minimum) v = c.minimum + value / 1000;
  if (c.maximum !== undefined && v > c.maximum) v = c.maximum;
  return Number(v.toFixed(scale));
}

/** An email address for row `i`, at example.com. */
export const sampleEmail = (i: number): string => `user${i + 1}@example.com`;

/** A URL for row `i`, under example.com. */
export const sampleUrl = (i: number): string => `https://example.com/items/${i + 1}`;

/** Plain text naming the property and the row: `Display name 2` for `displayName`, row 1. */
export function sampleText(name: string, i: number): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} ${i + 1}`;
}
