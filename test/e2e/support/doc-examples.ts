// The request examples of the Markdown docs, read as test cases: every `curl` line of a shell block
// and every request of an `http` block, with the JSON block that follows as the documented answer.
// docs/testing.md ("Documented examples are run") states the conventions read here.

/** A request as a page documents it; `target` is the path and query, placeholders kept. */
export interface DocRequest {
  /** The command or request line as written (continuations joined). */
  readonly source: string;
  readonly line: number;
  readonly method: string;
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The status a trailing `# 409 ...` comment states; otherwise any 2xx is expected. */
  readonly status?: number;
}

export interface DocBlock {
  readonly file: string;
  /** Line of the opening fence, 1-based. */
  readonly line: number;
  readonly requests: readonly DocRequest[];
  /** The logical lines of a shell block (continuations joined, spaces collapsed). */
  readonly commands: readonly string[];
  /** The ```json block right after the block: the answer to its last request. */
  readonly response?: { readonly line: number; readonly text: string };
  /** `<!-- printed by: npm run demo -->`: the block shows what that command prints. */
  readonly printedBy?: string;
}

export interface DocPage {
  readonly file: string;
  readonly blocks: readonly DocBlock[];
  /** Examples that could not be read, each with its place. */
  readonly problems: readonly string[];
}

interface Fence {
  readonly info: string;
  readonly line: number;
  readonly lines: string[];
  readonly marker?: { kind: string; value: string };
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const MARKER = /^\s*<!--\s*(not checked|printed by):\s*(.*?)\s*-->\s*$/;
const DEMO_ORIGIN = /^(?:https?:\/\/)?localhost:3000(?=\/|$)/;

/** Reads a page's fenced blocks and the request examples in them. */
export function parseDocPage(file: string, text: string): DocPage {
  const problems: string[] = [];
  const blocks: DocBlock[] = [];
  const fences = fencesOf(text);
  fences.forEach((fence, index) => {
    if (fence.marker?.kind === 'not checked') return;
    const where = `${file}:${fence.line}`;
    let requests: DocRequest[] = [];
    let commands: string[] = [];
    try {
      if (SHELL.has(fence.info)) {
        commands = logicalLines(fence.lines, fence.line).map((c) => c.text);
        requests = commands.length ? shellRequests(fence.lines, fence.line) : [];
      } else if (fence.info === 'http') {
        const request = httpRequest(fence.lines, fence.line);
        if (request) requests = [request];
      }
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      return;
    }
    const printedBy = fence.marker?.kind === 'printed by' ? fence.marker.value : undefined;
    if (requests.length === 0 && !printedBy) return;
    const next = fences[index + 1];
    const adjacent = next?.info === 'json' && betweenIsBlank(text, fence, next) ? next : undefined;
    blocks.push({
      file,
      line: fence.line,
      requests,
      commands,
      ...(adjacent ? { response: { line: adjacent.line, text: adjacent.lines.join('\n') } } : {}),
      ...(printedBy ? { printedBy } : {}),
    });
  });
  return { file, blocks, problems };
}

function fencesOf(text: string): (Fence & { end: number })[] {
  const lines = text.split('\n');
  const fences: (Fence & { end: number })[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fenceMark = '', info = ''] = open;
    let previous = i - 1;
    while (previous >= 0 && lines[previous]!.trim() === '') previous--;
    const marker = previous >= 0 ? MARKER.exec(lines[previous]!) : null;
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^\\s*${fenceMark[0] === '`' ? '`' : '~'}{${fenceMark.length},}\\s*$`);
    for (; j < lines.length && !close.test(lines[j]!); j++) {
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    fences.push({
      info: info.toLowerCase(),
      line: i + 1,
      lines: body,
      end: j + 1,
      ...(marker ? { marker: { kind: marker[1]!, value: marker[2]! } } : {}),
    });
    i = j;
  }
  return fences;
}

function betweenIsBlank(text: string, a: { end: number }, b: { line: number }): boolean {
  return text
    .split('\n')
    .slice(a.end, b.line - 1)
    .every((line) => line.trim() === '');
}

/** Shell lines with their `\` continuations joined, comments kept, blank lines dropped. */
function logicalLines(lines: readonly string[], fenceLine: number) {
  const out: { text: string; line: number }[] = [];
  let current: { text: string; line: number } | undefined;
  lines.forEach((raw, i) => {
    const continued = /\\\s*$/.test(raw);
    const part = raw.replace(/\\\s*$/, '').trim();
    current = current
      ? { text: `${current.text} ${part}`, line: current.line }
      : { text: part, line: fenceLine + 1 + i };
    if (!continued) {
      if (current.text !== '') out.push({ ...current, text: current.text.replace(/\s+/g, ' ') });
      current = undefined;
    }
  });
  if (current?.text) out.push(current);
  return out;
}

function shellRequests(lines: readonly string[], fenceLine: number): DocRequest[] {
  const requests: DocRequest[] = [];
  for (const { text, line } of logicalLines(lines, fenceLine)) {
    const command = text.replace(/^\$\s+/, '');
    if (!/^curl\s/.test(command)) continue;
    const { words, comment } = shellWords(command);
    requests.push(curlRequest(words.slice(1), comment, text, line));
  }
  return requests;
}

/** Splits a command line as a POSIX shell does for the quoting an example uses. */
export function shellWords(text: string): { words: string[]; comment?: string } {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      return { words, comment: text.slice(i + 1).trim() };
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`an unclosed ' in: ${text}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word = word ?? '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '$' || text[i] === '`') throw new Error(`a shell expansion in: ${text}`);
        if (text[i] === '\\' && /["\\$`]/.test(text[i + 1] ?? '')) i++;
        word += text[i];
      }
      if (i >= text.length) throw new Error(`an unclosed " in: ${text}`);
    } else if (c === '<' && /^<[a-z][a-z ]*>/.test(text.slice(i))) {
      // A placeholder such as <order id>, which the reader replaces.
      const end = text.indexOf('>', i);
      word = (word ?? '') + text.slice(i, end + 1);
      i = end;
    } else if ('$`|;&<>'.includes(c)) {
      throw new Error(`"${c}" (a shell expansion, pipe or redirect) in: ${text}`);
    } else if (c === '\\') {
      word = (word ?? '') + (text[++i] ?? '');
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return { words };
}

function curlRequest(
  args: readonly string[],
  comment: string | undefined,
  source: string,
  line: number,
): DocRequest {
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} without a value in: ${source}`);
      return next;
    };
    if (arg === '-X' || arg === '--request') method = value();
    else if (arg === '-H' || arg === '--header') {
      const header = value();
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') body = value();
    else if (/^-[sSiv]+$/.test(arg) || arg === '--silent' || arg === '--include') continue;
    else if (arg.startsWith('-')) throw new Error(`curl option ${arg} is not one the test reads`);
    else if (url === undefined) url = arg;
    else throw new Error(`two URLs in: ${source}`);
  }
  if (url === undefined) throw new Error(`no URL in: ${source}`);
  if (!DEMO_ORIGIN.test(url)) {
    throw new Error(`${url} is not on the demo's localhost:3000, in: ${source}`);
  }
  const status = /^(\d{3})\b/.exec(comment ?? '')?.[1];
  return {
    source,
    line,
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    target: url.replace(DEMO_ORIGIN, '') || '/',
    headers,
    ...(body === undefined ? {} : { body }),
    ...(status ? { status: Number(status) } : {}),
  };
}

/** `METHOD /path HTTP/1.1`, headers, a blank line and a body; undefined for a response. */
function httpRequest(lines: readonly string[], fenceLine: number): DocRequest | undefined {
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return undefined;
  const start = /^([A-Z]+) (\/\S*)(?: HTTP\/[\d.]+)?$/.exec(lines[first]!.trim());
  if (!start) return undefined;
  const headers: Record<string, string> = {};
  let i = first + 1;
  for (; i < lines.length && lines[i]!.trim() !== ''; i++) {
    const header = /^([\w-]+):\s*(.*)$/.exec(lines[i]!.trim());
    if (!header) throw new Error(`"${lines[i]}" is not a header`);
    headers[header[1]!.toLowerCase()] = header[2]!;
  }
  const body = lines
    .slice(i + 1)
    .join('\n')
    .trim();
  return {
    source: lines[first]!.trim(),
    line: fenceLine + 1 + first,
    method: start[1]!,
    target: start[2]!,
    headers,
    ...(body ? { body } : {}),
  };
}

/** Stands for any value in a documented answer; as a member name, for any further members. */
export const ANY = '…';

/**
 * Where `actual` differs from the documented `expected`, as JSON paths with both values. Objects
 * must have the same members (unless `expected` lists `"…": "…"`), arrays the same length.
 */
export function differences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (expected === ANY) return actual === undefined ? [`${path}: missing`] : [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: ${show(actual)} is not an array`];
    if (actual.length !== expected.length) {
      return [`${path}: ${actual.length} elements, documented ${expected.length}`];
    }
    return expected.flatMap((e, i) => differences(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path}: ${show(actual)} is not an object`];
    }
    const documented = expected as Record<string, unknown>;
    const answered = actual as Record<string, unknown>;
    const found = Object.keys(documented)
      .filter((key) => key !== ANY)
      .flatMap((key) =>
        key in answered
          ? differences(documented[key], answered[key], `${path}.${key}`)
          : [`${path}.${key}: missing`],
      );
    const extra = ANY in documented ? [] : Object.keys(answered).filter((k) => !(k in documented));
    return [...found, ...extra.map((key) => `${path}.${key}: answered but not documented`)];
  }
  return Object.is(expected, actual)
    ? []
    : [`${path}: ${show(actual)}, documented ${show(expected)}`];
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
