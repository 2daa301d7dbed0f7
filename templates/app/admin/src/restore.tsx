// A soft-deleted row's `Restore` button in the list (`POST /v1/<resource>/{id}/restore`), on the
// deleted rows the list shows when its `Deleted rows` filter asks for them. A module of its own
// (not in actions.tsx, which may be older than it): an upgrade adds it to an app that lacks it.
import { Button } from 'react-admin';
import { useRowRoute } from './row-route.js';

export function RestoreButton({ label = 'Restore' }: { label?: string }) {
  const { record, pending, call } = useRowRoute(label);
  if (record?.deletedOn === null || record?.deletedOn === undefined) return null;
  return (
    <Button
      label={label}
      onClick={(event) => {
        // The row itself opens its show page, which a deleted row does not have.
        event.stopPropagation();
        void call({ segment: 'restore' });
      }}
      disabled={pending}
    />
  );
}
