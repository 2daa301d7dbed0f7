// OR groups: `filter=or(price:LessThan:5|name:Contains:lamp)` and, nested, `and(...)` inside an
// `or(...)`. Members are `field:operation:value` conditions (parsed as plain filters are) or
// groups, separated by `|`; inside a group `\` makes the next character literal, so `\|`, `\(`,
// `\)` and `\\` are a value's `|`, `(`, `)` and `\`. Depth and size are bounded; any mistake is a
// 400 naming the filter.
import { invalidListQuery } from './errors.js';
import { shown } from './names.js';
import { parseFilter } from './parse-filter.js';
import type { ListResource } from './resource.js';
import type { ListFilter, ListFilterGroup } from './types.js';

/** Deepest nesting of groups: `or(and(or(...)))` is 3. */
export const MAX_GROUP_DEPTH = 3;
/** Most groups in one list query, nested ones included. */
export const MAX_GROUPS = 10;

const OPENING = /^\s*(or|and)\s*\(/i;

/** How many conditions and groups the query has used so far, against its limits. */
export interface ConditionBudget {
  conditions: number;
  groups: number;
  readonly maxConditions: number;
}

/** True when a `filter` value is a group (`or(...)`, `and(...)`) rather than one condition. */
export const isFilterGroup = (raw: string): boolean => OPENING.test(raw);

const malformed = (reason: string) =>
  invalidListQuery(`filter: ${reason}`, {
    parameter: 'filter',
    allowed: 'or(field:operation:value|field:operation:value), with \\| \\( \\) \\\\ in values',
  });

/** Counts one more condition, refusing past the query's limit. */
export function spendCondition(budget: ConditionBudget): void {
  budget.conditions += 1;
  if (budget.conditions > budget.maxConditions) {
    throw invalidListQuery(
      `filter: more than ${budget.maxConditions} conditions in all (inside groups too)`,
      { parameter: 'filter', allowed: `at most ${budget.maxConditions} conditions` },
    );
  }
}

class Reader {
  pos = 0;
  constructor(readonly text: string) {}
  get rest(): string {
    return this.text.slice(this.pos);
  }
  skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos += 1;
  }
}

/** One member condition: its text runs to the next unescaped `|` or `)`, spaces included. */
function condition(resource: ListResource<unknown>, r: Reader, budget: ConditionBudget) {
  let text = '';
  while (r.pos < r.text.length) {
    const c = r.text[r.pos]!;
    if (c === '|' || c === ')') break;
    if (c === '(') {
      throw malformed(
        `"(" inside a group starts nothing here; write \\( for a literal one, or or(...)/and(...)`,
      );
    }
    if (c === '\\') {
      const next = r.text[r.pos + 1];
      if (next === undefined) throw malformed('the group ends in a lone \\; write \\\\ for one');
      text += next;
      r.pos += 2;
      continue;
    }
    text += c;
    r.pos += 1;
  }
  if (text.trim() === '') {
    throw malformed('a group has an empty member; write or(a:Equal:1|b:Equal:2)');
  }
  spendCondition(budget);
  return parseFilter(resource, text);
}

function group(
  resource: ListResource<unknown>,
  r: Reader,
  depth: number,
  budget: ConditionBudget,
): ListFilterGroup {
  const opening = OPENING.exec(r.rest);
  if (!opening) throw malformed(`"${shown(r.rest)}" is not a group; write or(...) or and(...)`);
  if (depth > MAX_GROUP_DEPTH) {
    throw invalidListQuery(`filter: groups nest ${depth} deep; at most ${MAX_GROUP_DEPTH}`, {
      parameter: 'filter',
      allowed: `groups nested at most ${MAX_GROUP_DEPTH} deep`,
    });
  }
  budget.groups += 1;
  if (budget.groups > MAX_GROUPS) {
    throw invalidListQuery(`filter: more than ${MAX_GROUPS} groups; at most ${MAX_GROUPS}`, {
      parameter: 'filter',
      allowed: `at most ${MAX_GROUPS} groups`,
    });
  }
  const combine = opening[1]!.toLowerCase() as ListFilterGroup['combine'];
  r.pos += opening[0].length;
  const members: (ListFilter | ListFilterGroup)[] = [];
  for (;;) {
    r.skipSpaces();
    members.push(
      isFilterGroup(r.rest)
        ? group(resource, r, depth + 1, budget)
        : condition(resource, r, budget),
    );
    r.skipSpaces();
    const c = r.text[r.pos];
    r.pos += 1;
    if (c === '|') continue;
    if (c === ')') return { combine, members };
    throw malformed(`the group ${combine}( is not closed; end it with ")"`);
  }
}

/**
 * Parses one `filter` value that is a group, spending `budget`.
 *
 * @example
 * parseFilterGroup(products, 'or(price:LessThan:5|name:Contains:lamp)', budget);
 */
export function parseFilterGroup(
  resource: ListResource<unknown>,
  raw: string,
  budget: ConditionBudget,
): ListFilterGroup {
  const r = new Reader(raw);
  const parsed = group(resource, r, 1, budget);
  r.skipSpaces();
  if (r.pos < raw.length) {
    throw malformed(`"${shown(r.rest)}" follows the group's closing ")"; give it its own filter`);
  }
  return parsed;
}

/** The conditions of `groups`, however deep. */
export function groupConditions(groups: readonly ListFilterGroup[]): ListFilter[] {
  return groups.flatMap((g) =>
    g.members.flatMap((m) => ('combine' in m ? groupConditions([m]) : [m])),
  );
}
