// Dates consistent with a status: in a sample row (a seed's, a request body's) a date named after
// a status the row has not reached (`shippedOn` of a `placed` order) stays empty when it may, and
// the dates of the statuses it has passed come in their order (`placedAt` before `shippedOn`).
import type { FieldType } from '../model/types.js';

/** A value of the row, as the alignment needs to know it. */
export interface RowMember {
  /** The property, camelCase. */
  readonly name: string;
  readonly type: FieldType;
  /** An enum's values, in the order a row goes through them. */
  readonly values?: readonly string[];
  /** Whether it may be null. */
  readonly nullable: boolean;
  /** A unique value is left as drawn: moving it could repeat another row's. */
  readonly unique?: boolean;
}

/** `shipped` -> `ship`, `placed` -> `plac`, `active` -> `activ`: what a date's name contains. */
const stem = (value: string) =>
  value
    .toLowerCase()
    .replace(/e?d?$/, '')
    .replace(/(.)\1$/, '$1');

/** Aligns the dates of `row` (values by property name) with its status, in place. */
export function alignDatesWithStatus(
  members: readonly RowMember[],
  row: Map<string, unknown>,
): void {
  const enums = members.filter((m) => m.type === 'enum' && row.has(m.name));
  const status = enums.find((m) => /status|state|stage|phase/i.test(m.name)) ?? enums[0];
  const steps = status?.values ?? [];
  const reached = steps.indexOf(String(row.get(status?.name ?? '')));
  if (reached < 0) return;
  const dated = members
    .filter((m) => (m.type === 'date' || m.type === 'date-time') && !m.unique && row.has(m.name))
    .map((m) => ({ m, step: steps.findIndex((v) => m.name.toLowerCase().includes(stem(v))) }))
    .filter((d) => d.step >= 0)
    .sort((a, b) => a.step - b.step);
  const passed = dated.filter((d) => d.step <= reached || !d.m.nullable);
  // Instants sorted, each written as its member holds it: a day, or a time in UTC.
  const times = passed.map((d) => String(row.get(d.m.name))).sort();
  passed.forEach((d, n) => {
    const time = times[n]!;
    if (d.m.type === 'date') row.set(d.m.name, time.slice(0, 10));
    else row.set(d.m.name, time.length === 10 ? `${time}T09:30:00.000Z` : time);
  });
  for (const d of dated) if (!passed.includes(d)) row.set(d.m.name, null);
}
