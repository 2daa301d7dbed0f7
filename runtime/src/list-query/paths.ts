// What a filter or `orderBy` may name: a scalar member (`price`), or by a dotted path a scalar
// sub-member of a nested object (`customer.name`, a joined table's column) or of a collection's
// elements (`tags.name`, matched when any element matches). Depth 2 at most, as search.
import type {
  CollectionMember,
  Member,
  RelationMember,
  ScalarMember,
  SubMember,
} from './members.js';
import { fieldKey } from './names.js';

/** A queryable name, resolved: the member to coerce values to and where its column is. */
export type QueryTarget =
  | { readonly kind: 'column'; readonly member: ScalarMember }
  | { readonly kind: 'relation'; readonly member: ScalarMember; readonly relation: RelationMember }
  | {
      readonly kind: 'collection';
      readonly member: ScalarMember;
      readonly collection: CollectionMember;
    };

/** The lookup key of a name or a dotted path: each part as `fieldKey` normalises it. */
export function pathKey(name: string): string {
  return name.split('.').map(fieldKey).join('.');
}

/** A sub-member as a scalar member: its dotted property, its type and its column there. */
function nested(parent: string, sub: SubMember): ScalarMember | undefined {
  if (sub.type === 'opaque') return undefined;
  return {
    kind: 'scalar',
    property: `${parent}.${sub.property}`,
    type: sub.type,
    column: sub.source,
    // A nested member is null when there is no related row (or none the caller may see).
    nullable: true,
    ...(sub.enumValues ? { enumValues: sub.enumValues } : {}),
  };
}

/** Every name a filter or `orderBy` may use, by its lookup key. */
export function queryTargets(members: readonly Member[]): Map<string, QueryTarget> {
  const targets = new Map<string, QueryTarget>();
  for (const m of members) {
    if (m.kind === 'scalar') targets.set(fieldKey(m.property), { kind: 'column', member: m });
    if (m.kind === 'relation') {
      for (const sub of m.members) {
        const member = nested(m.property, sub);
        if (member)
          targets.set(pathKey(member.property), { kind: 'relation', member, relation: m });
      }
    }
    if (m.kind === 'collection') {
      for (const sub of m.members) {
        const member = nested(m.property, sub);
        if (member) {
          targets.set(pathKey(member.property), { kind: 'collection', member, collection: m });
        }
      }
    }
  }
  return targets;
}
