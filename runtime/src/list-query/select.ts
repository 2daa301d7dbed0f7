// Field selection: `select=id,name,customer.name` keeps only those DTO members in each item (a
// dotted path keeps one member of a nested object, of a collection's object elements or of a JSON
// object member, or of its object elements), and the page query reads only their columns and
// joins only the relations it needs.
import { invalidListQuery } from './errors.js';
import type { Member } from './members.js';
import { fieldKey, shown } from './names.js';
import type { ListResource } from './resource.js';

/** Most names one `select` may list. */
export const MAX_SELECTED = 100;

type WithMembers = Extract<Member, { kind: 'relation' | 'collection' | 'json' }>;

/** A member whose objects have named members: a relation, a collection or a JSON object. */
const hasSubMembers = (m: Member): m is WithMembers =>
  (m.kind === 'relation' || m.kind === 'collection' || m.kind === 'json') && m.members.length > 0;

/** Why a member has no members to select, for the 400. */
function whole(member: Member): string {
  if (member.kind === 'json' && member.shape === 'dictionary') {
    return `${member.property} is a JSON dictionary, whose keys are not fixed`;
  }
  if (member.kind === 'json' && member.shape === 'array') {
    return `${member.property} is a JSON array of values, not of objects`;
  }
  if (member.kind === 'collection') return `${member.property} is a collection of values`;
  if (member.kind === 'json') return `${member.property} is a JSON value without named members`;
  return `${member.property} is a single value`;
}

/**
 * Every name `select` accepts: each member, and each sub-member of a relation, a collection or a
 * JSON object.
 */
export function selectableFields(resource: ListResource<unknown>): string[] {
  return resource.members.flatMap((m) => [
    m.property,
    ...(hasSubMembers(m) ? m.members.map((s) => `${m.property}.${s.property}`) : []),
  ]);
}

function selectedPath(resource: ListResource<unknown>, name: string): string {
  const refuse = (reason: string) =>
    invalidListQuery(`select: ${reason}`, {
      parameter: 'select',
      field: name.slice(0, 60),
      allowed: selectableFields(resource),
    });
  const parts = name.split('.');
  const member = resource.member(parts[0]!.trim());
  if (!member || parts.length > 2) {
    throw refuse(
      `"${shown(name)}" is not a field of this list; use one of ${selectableFields(resource).join(', ')}`,
    );
  }
  if (parts.length === 1) return member.property;
  const key = fieldKey(parts[1]!.trim());
  const sub = hasSubMembers(member)
    ? member.members.find((s) => fieldKey(s.property) === key)
    : undefined;
  if (!hasSubMembers(member)) {
    throw refuse(
      `"${shown(name)}": ${whole(member)}, so it has no members to select; select ` +
        `${member.property} whole or one of ${selectableFields(resource).join(', ')}`,
    );
  }
  if (!sub) {
    throw refuse(
      `"${shown(name)}" names no member of ${member.property}'s objects; select ${member.property} ` +
        `whole or one of ${selectableFields(resource).join(', ')}`,
    );
  }
  return `${member.property}.${sub.property}`;
}

/**
 * Reads `select`: the canonical names of the chosen members, or undefined for every member
 * (no or a blank `select`). A whole member makes its dotted paths redundant.
 */
export function parseSelect(
  resource: ListResource<unknown>,
  text: string | undefined,
): string[] | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  const names = trimmed.split(',').map((name) => name.trim());
  if (names.length > MAX_SELECTED) {
    throw invalidListQuery(`select: ${names.length} names given; at most ${MAX_SELECTED}`, {
      parameter: 'select',
      allowed: `at most ${MAX_SELECTED} comma-separated names`,
    });
  }
  const paths = new Set<string>();
  for (const name of names) {
    if (name === '') {
      throw invalidListQuery('select: an empty name; write select=id,name', {
        parameter: 'select',
        allowed: selectableFields(resource),
      });
    }
    paths.add(selectedPath(resource, name));
  }
  return [...paths].filter((p) => !p.includes('.') || !paths.has(p.split('.')[0]!));
}

/**
 * The members an item carries under `select`: whole members, and relations, collections and JSON
 * objects cut down to their selected sub-members (a JSON member then marked `picked`); every
 * member without a selection.
 */
export function selectedMembers(
  members: readonly Member[],
  select: readonly string[] | undefined,
): readonly Member[] {
  if (!select) return members;
  const whole = new Set(select.filter((p) => !p.includes('.')));
  const subs = new Map<string, Set<string>>();
  for (const path of select.filter((p) => p.includes('.'))) {
    const [parent, sub] = path.split('.') as [string, string];
    subs.set(parent, (subs.get(parent) ?? new Set()).add(sub));
  }
  return members.flatMap((m): Member[] => {
    if (whole.has(m.property)) return [m];
    const chosen = subs.get(m.property);
    if (!chosen || !hasSubMembers(m)) return [];
    const members = m.members.filter((s) => chosen.has(s.property));
    return [(m.kind === 'json' ? { ...m, members, picked: true } : { ...m, members }) as Member];
  });
}
