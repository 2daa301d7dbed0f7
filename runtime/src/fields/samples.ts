// Realistic sample values for seeds and generated tests, picked from a field's name, kept inside
// its constraints, and the same on every run (snapshots stay stable).
import { createHash } from 'node:crypto';
import type { FieldConstraints } from './kind.js';

const itemNames = [
  'Oak desk',
  'Linen lamp shade',
  'Walnut bookshelf',
  'Ceramic mug',
  'Wool throw',
  'Brass floor lamp',
];
const people = [
  'Ana Souza',
  'Kenji Tanaka',
  'Amara Okafor',
  'Lars Nilsson',
  'Priya Raman',
  'Tom Becker',
];
export const sentences = [
  'Solid wood, oiled by hand.',
  'Ships flat in one box.',
  'Machine washable at 30 degrees.',
  'Made to order in four weeks.',
  'Fits most standard fittings.',
  'Back in stock next month.',
];
export const decimals = [249.5, 89.9, 24.99, 1299, 12.75, 540.2];
export const integers = [12, 3, 48, 7, 150, 1];

/** A UUID (version 4 layout) derived from `seed`, so it never changes between runs. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** `text` cut or padded to the length constraints. */
export function fitLength(text: string, c: FieldConstraints): string {
  let out = c.maxLength !== undefined ? text.slice(0, c.maxLength) : text;
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

/** An email address for row `i`: a person's first name at example.com. */
export const sampleEmail = (i: number): string =>
  `${people[i % people.length]!.split(' ')[0]!.toLowerCase()}@example.com`;

/** A URL for row `i`, under example.com. */
export const sampleUrl = (i: number): string => `https://example.com/items/${i + 1}`;

/** Text that fits a property's name: an email for `email`, a person for `author`, and so on. */
export function sampleText(name: string, i: number, long: boolean): string {
  const n = name.toLowerCase();
  if (/email/.test(n)) return sampleEmail(i);
  if (/phone/.test(n)) return `+44 20 7946 09${String(10 + i)}`;
  if (/url|website|link/.test(n)) return sampleUrl(i);
  if (/(^|by|user|author|owner|person|customer)$|displayname|fullname/.test(n))
    return people[i % people.length]!;
  if (/name|title|label/.test(n)) return itemNames[i % itemNames.length]!;
  if (/code|sku|ref/.test(n)) return `SKU-${String(1001 + i)}`;
  if (long || /description|note|comment|summary/.test(n)) return sentences[i % sentences.length]!;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} ${i + 1}`;
}
