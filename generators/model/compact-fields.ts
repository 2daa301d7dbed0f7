// The one-line form of a field or parameter (`price:decimal(12,2)!`), turned into its spec, and
// the top-level split the other one-line forms (compact.ts) share.
import { FIELD_KINDS, fieldKinds, isFieldKind } from '@slicekit/runtime/fields';
import { didYouMean, type SpecProblem } from './errors.js';
import type { FieldSpec } from './types.js';

/** Splits on `separator` outside (), [] and {}. */
export function splitTop(text: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth--;
    if (ch === separator && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** `150` -> 150, `true` -> true, anything else stays text. */
export function scalar(text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text.replace(/^['"](.*)['"]$/, '$1');
}

const CONSTRAINT_KEYS = [
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'default',
  'precision',
  'scale',
  'onDelete',
];

/**
 * `price:decimal(12,2)!:minimum=0.01` -> a field or parameter spec. The type may carry arguments
 * (`string(150)` = maxLength, `decimal(12,2)` = precision and scale, `enum(a|b)` = values) and a
 * `!` (required); flags follow as `required` or `key=value`.
 */
export function parseTyped(
  text: string,
  at: string,
  problems: SpecProblem[],
): { name: string; spec: Partial<FieldSpec> } {
  const [name = '', typeText, ...flags] = text.split(':').map((s) => s.trim());
  const spec: Partial<FieldSpec> & Record<string, unknown> = {};
  if (typeText) {
    const match = /^([a-z-]+)(?:\((.*)\))?(!)?$/.exec(typeText);
    if (!match) {
      problems.push({
        path: at,
        message: `"${typeText}" is not a type`,
        fix: `${didYouMean(/^[\w-]*/.exec(typeText)?.[0] ?? '', FIELD_KINDS)}write name:type, e.g. price:decimal or name:string(150)!, with one of the types ${FIELD_KINDS.join(', ')}`,
      });
      return { name, spec };
    }
    const [, type, args, bang] = match;
    spec.type = type as FieldSpec['type'];
    if (bang) spec.required = true;
    if (args !== undefined) {
      // What a kind takes in parentheses comes from the field-kind registry.
      const argument = isFieldKind(type) ? fieldKinds[type].argument : undefined;
      if (argument === 'values') spec.values = args.split('|').map((v) => v.trim());
      else if (argument === 'precision') {
        const [precision, scale] = args.split(',').map((n) => Number(n.trim()));
        spec.precision = precision;
        if (scale !== undefined) spec.scale = scale;
      } else if (argument === 'maxLength') spec.maxLength = Number(args);
      else if (argument === 'entity') spec.entity = args.trim();
      else
        problems.push({
          path: at,
          message: `${type} takes no arguments`,
          fix: `write ${type} alone`,
        });
    }
  }
  for (const flag of flags) {
    if (flag === 'required' || flag === '!') spec.required = true;
    else if (flag === 'optional') spec.required = false;
    else if (flag === 'unique') spec.unique = true;
    else {
      const [key = '', ...rest] = flag.split('=');
      if (!CONSTRAINT_KEYS.includes(key) || rest.length === 0) {
        problems.push({
          path: `${at}`,
          message: `"${flag}" is not a constraint`,
          fix: `write required, unique or one of ${CONSTRAINT_KEYS.map((k) => `${k}=...`).join(', ')}`,
        });
        continue;
      }
      const value = rest.join('=');
      spec[key] = key === 'pattern' ? value : scalar(value);
    }
  }
  return { name, spec };
}
