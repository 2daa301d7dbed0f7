// Realistic sample values for seeds and generated tests: picked from a field's name and type,
// kept inside its constraints, and the same on every run (snapshots stay stable).
import { createHash } from 'node:crypto';
import type { FieldModel, ParamModel } from '../model/types.js';

type Typed = Pick<
  FieldModel,
  'type' | 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'pattern' | 'values' | 'scale'
> & {
  name: { camel: string; words: string };
  hasDefault?: boolean;
  default?: unknown;
};

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
const sentences = [
  'Solid wood, oiled by hand.',
  'Ships flat in one box.',
  'Machine washable at 30 degrees.',
  'Made to order in four weeks.',
  'Fits most standard fittings.',
  'Back in stock next month.',
];
const decimals = [249.5, 89.9, 24.99, 1299, 12.75, 540.2];
const integers = [12, 3, 48, 7, 150, 1];

/** A UUID (version 4 layout) derived from `seed`, so it never changes between runs. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function fit(text: string, f: Typed): string {
  let out = f.maxLength !== undefined ? text.slice(0, f.maxLength) : text;
  while (f.minLength !== undefined && out.length < f.minLength) out += 'x';
  return out;
}

function clamp(value: number, f: Typed): number {
  let v = value;
  if (f.minimum !== undefined && v < f.minimum) v = f.minimum + value / 1000;
  if (f.maximum !== undefined && v > f.maximum) v = f.maximum;
  const scale = f.type === 'integer' ? 0 : (f.scale ?? 2);
  return Number(v.toFixed(scale));
}

function text(f: Typed, i: number): string {
  const n = f.name.camel.toLowerCase();
  if (/email/.test(n))
    return `${people[i % people.length]!.split(' ')[0]!.toLowerCase()}@example.com`;
  if (/phone/.test(n)) return `+44 20 7946 09${String(10 + i)}`;
  if (/url|website|link/.test(n)) return `https://example.com/items/${i + 1}`;
  if (/(^|by|user|author|owner|person|customer)$|displayname|fullname/.test(n))
    return people[i % people.length]!;
  if (/name|title|label/.test(n)) return itemNames[i % itemNames.length]!;
  if (/code|sku|ref/.test(n)) return `SKU-${String(1001 + i)}`;
  if (f.type === 'text' || /description|note|comment|summary/.test(n))
    return sentences[i % sentences.length]!;
  return `${f.name.words.charAt(0).toUpperCase()}${f.name.words.slice(1)} ${i + 1}`;
}

/**
 * A value of row `i` no other row shares, for a field that must be unique (a reference-data key):
 * `X01`, `X02`... for text, unlikely to be a real code, and 9001, 9002... for numbers.
 */
function distinctValue(f: Typed, i: number): unknown {
  if (f.type === 'string' || f.type === 'text') {
    const width = Math.max(3, Math.min(f.maxLength ?? 8, Math.max(f.minLength ?? 0, 3)));
    return `X${String(i + 1).padStart(width - 1, '0')}`;
  }
  if (f.type === 'integer' || f.type === 'decimal') return clamp(9001 + i, f);
  return undefined;
}

/**
 * The sample value of row `i` for a field or parameter, as JSON would carry it. `distinct` asks
 * for a value that differs on every row and from everyday codes (a unique key).
 */
export function sampleValue(f: Typed, i: number, seed: string, distinct = false): unknown {
  if (distinct) {
    const value = distinctValue(f, i);
    if (value !== undefined) return value;
  }
  switch (f.type) {
    case 'string':
    case 'text':
      return fit(text(f, i), f);
    case 'uuid':
      return stableUuid(`${seed}:${f.name.camel}:${i}`);
    case 'date':
      return `2024-0${(i % 9) + 1}-1${i % 10}`;
    case 'date-time':
      return `2024-0${(i % 9) + 1}-1${i % 10}T09:30:00.000Z`;
    case 'enum':
      return f.values?.[i % f.values.length] ?? '';
    case 'boolean':
      return i === 0 && f.hasDefault ? f.default : i % 3 === 2;
    case 'integer':
      return clamp(integers[i % integers.length]!, f);
    case 'decimal':
      return clamp(decimals[i % decimals.length]!, f);
    case 'json':
      return { note: sentences[i % sentences.length] };
  }
}

/** A value of the wrong JSON type for a parameter: every one of them makes a 400. */
export function wrongValue(p: ParamModel): unknown {
  return ['string', 'text', 'uuid', 'date', 'date-time', 'enum', 'json'].includes(p.type)
    ? 12345
    : 'not-a-value';
}
