// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line
// must be a HELP, a TYPE, a comment or a well-formed sample of a family whose TYPE came first.
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name to its TYPE. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const sampleLine = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL}=${VALUE}(?:,${LABEL}=${VALUE})*)?,?)\\})? (\\S+)(?: (-?\\d+))?$`,
);
const labelPair = new RegExp(`(${LABEL})=(${VALUE})`, 'g');
const typeLine = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const helpLine = new RegExp(`^# HELP (${NAME}) (.*)$`);
const suffixes = ['_bucket', '_count', '_sum', '_created', '_total'];

// Special values are matched ignoring case, as Prometheus reads them (prom-client writes `Nan`).
function parseValue(text: string, line: string): number {
  if (/^nan$/i.test(text)) return NaN;
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new Error(`not a sample value: ${JSON.stringify(line)}`);
  }
  return Number(text);
}

const familyOf = (name: string, types: Map<string, string>): string | undefined => {
  if (types.has(name)) return name;
  const suffix = suffixes.find((s) => name.endsWith(s));
  const base = suffix ? name.slice(0, -suffix.length) : undefined;
  return base !== undefined && types.has(base) ? base : undefined;
};

/** Parses `text`, throwing on the first line that breaks the format. */
export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = typeLine.exec(line);
      if (type) {
        if (types.has(type[1]!)) throw new Error(`TYPE given twice: ${line}`);
        types.set(type[1]!, type[2]!);
      } else if (line.startsWith('# HELP ') && !helpLine.test(line)) {
        throw new Error(`malformed HELP: ${JSON.stringify(line)}`);
      }
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`malformed sample: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = match;
    if (!familyOf(name!, types)) throw new Error(`sample before its TYPE: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, label, quoted] of (labelText ?? '').matchAll(labelPair)) {
      if (label! in labels) throw new Error(`label given twice: ${line}`);
      labels[label!] = JSON.parse(quoted!) as string;
    }
    samples.push({ name: name!, labels, value: parseValue(valueText!, line) });
  }
  return { types, samples };
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when none. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = exposition.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match`);
  return found[0]?.value ?? 0;
}

/** Fetches and parses `/metrics` on `port`, checking the status and content type. */
export async function scrape(port: number): Promise<Exposition> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`content type ${type}`);
  return parsePrometheusText(await res.text());
}

/** A TCP port free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || address === null) throw new Error('no port was assigned');
  return address.port;
}
