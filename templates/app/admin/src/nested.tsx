// On a show page, links to the rows the API nests under this one (`/v1/customers/{id}/orders`):
// each opens that list filtered by this row. The child's resource declares where it nests
// (`options.nested` in src/resources/<entity>.tsx), so a child generated later links itself.
import {
  Link,
  useCreatePath,
  useRecordContext,
  useResourceContext,
  useResourceDefinitions,
} from 'react-admin';

/** Where a resource's rows are nested under another's: the parent, the field naming it, a label. */
export interface Nested {
  parent: string;
  target: string;
  label: string;
}

// (No double braces in these files: the app generator renders them as Handlebars templates.)
const bar = { display: 'flex', gap: '1rem', padding: '0.5rem 1rem' } as const;

export function NestedLinks() {
  const record = useRecordContext();
  const resource = useResourceContext();
  const definitions = useResourceDefinitions();
  const createPath = useCreatePath();
  if (!record || !resource) return null;
  const links = Object.values(definitions).flatMap((definition) =>
    ((definition.options?.nested ?? []) as Nested[])
      .filter((nested) => nested.parent === resource)
      .map((nested) => ({ resource: definition.name, ...nested })),
  );
  if (links.length === 0) return null;
  const listOf = (child: string, target: string, id: unknown) => {
    const filter = JSON.stringify(Object.fromEntries([[target, id]]));
    return {
      pathname: createPath({ resource: child, type: 'list' }),
      search: `filter=${encodeURIComponent(filter)}`,
    };
  };
  return (
    <nav aria-label="Related rows" style={bar}>
      {links.map((link) => (
        <Link
          key={`${link.resource}:${link.target}`}
          to={listOf(link.resource, link.target, record.id)}
        >
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
