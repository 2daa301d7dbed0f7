// The sequence format language: literal text, `{DateTime:<pattern>}` and `{1:<zeros>}`.
import { SequenceDefinitionError } from './errors.js';

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'date'; pattern: string }
  | { kind: 'value'; width: number };

/** A parsed format string, ready to render many values. */
export interface SequenceFormat {
  readonly source: string;
  readonly parts: readonly Part[];
}

const dateTokens = /yyyy|yy|MM|dd|HH|mm|ss/g;

/**
 * Parses a format string:
 * - `{1}` the sequence value; `{1:00000}` the value left-padded with zeros to five digits;
 * - `{DateTime:yyMMdd}` the current UTC date and time: `yyyy`, `yy`, `MM`, `dd`, `HH`, `mm`,
 *   `ss`; any other character of the pattern is copied;
 * - `{{` and `}}` a literal brace; anything else is copied as it is.
 * The value placeholder must appear exactly once, so two values never format alike.
 */
export function parseSequenceFormat(source: string): SequenceFormat {
  const parts: Part[] = [];
  let text = '';
  let values = 0;
  const fail = (why: string) => {
    throw new SequenceDefinitionError(`format "${source}": ${why}`);
  };
  for (let i = 0; i < source.length; i += 1) {
    const ch = source.charAt(i);
    if ((ch === '{' || ch === '}') && source.charAt(i + 1) === ch) {
      text += ch;
      i += 1;
      continue;
    }
    if (ch === '}') fail(`unmatched "}" at ${i} (write "}}" for a literal brace)`);
    if (ch !== '{') {
      text += ch;
      continue;
    }
    const end = source.indexOf('}', i);
    if (end < 0) fail(`unclosed "{" at ${i}`);
    const body = source.slice(i + 1, end);
    const colon = body.indexOf(':');
    const name = colon < 0 ? body : body.slice(0, colon);
    const arg = colon < 0 ? '' : body.slice(colon + 1);
    if (text) parts.push({ kind: 'text', text });
    text = '';
    if (name === 'DateTime') {
      if (!arg) fail('{DateTime} needs a pattern, for example {DateTime:yyMMdd}');
      parts.push({ kind: 'date', pattern: arg });
    } else if (name === '1') {
      if (arg && !/^0+$/.test(arg)) fail(`{1:${arg}}: the value's pattern may only hold zeros`);
      parts.push({ kind: 'value', width: arg.length });
      values += 1;
    } else {
      fail(`unknown placeholder {${body}} (use {1}, {1:000} or {DateTime:pattern})`);
    }
    i = end;
  }
  if (text) parts.push({ kind: 'text', text });
  if (values !== 1) fail('the value placeholder {1} must appear exactly once');
  return { source, parts };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function formatDate(pattern: string, at: Date): string {
  return pattern.replace(dateTokens, (token) => {
    switch (token) {
      case 'yyyy':
        return pad(at.getUTCFullYear(), 4);
      case 'yy':
        return pad(at.getUTCFullYear() % 100, 2);
      case 'MM':
        return pad(at.getUTCMonth() + 1, 2);
      case 'dd':
        return pad(at.getUTCDate(), 2);
      case 'HH':
        return pad(at.getUTCHours(), 2);
      case 'mm':
        return pad(at.getUTCMinutes(), 2);
      default:
        return pad(at.getUTCSeconds(), 2);
    }
  });
}

/**
 * Renders `value` through a parsed format.
 *
 * @example
 * renderSequenceValue(parseSequenceFormat('T{DateTime:yyMMdd}{1:00000}'), 42, new Date('2024-03-09'))
 * // 'T24030900042'
 */
export function renderSequenceValue(
  format: SequenceFormat,
  value: number,
  at = new Date(),
): string {
  return format.parts
    .map((part) => {
      if (part.kind === 'text') return part.text;
      if (part.kind === 'date') return formatDate(part.pattern, at);
      return pad(value, part.width);
    })
    .join('');
}
