// The slice test's checks of soft delete (the spec's `softDelete: true`): a deleted row is gone
// from every read and listed with `?deleted=` by those who may restore; restore brings it back;
// a deleted row's unique value can be taken again, and restoring it then is 409.
import type { EntityModel } from '../../model/types.js';
import { eventNameOf } from './events.js';

/**
 * What the soft-delete tests need: the events delete and restore raise, and a caller who may list
 * but not restore (the roles to give it), when the spec's access makes one.
 */
export function softDeleteTestsView(model: EntityModel, duplicateFields: string[] | undefined) {
  if (!model.softDelete) return { softDeleteTests: undefined };
  const named = (operation: 'Deleted' | 'Restored') => {
    const event = model.events.find((e) => e.operation === operation);
    return event ? eventNameOf(model, event) : undefined;
  };
  const list = model.access?.list;
  const restore = model.access?.restore;
  // Someone the list lets in whom restore does not: no role at all, or a list role restore lacks.
  const lister = !Array.isArray(restore)
    ? undefined
    : !Array.isArray(list)
      ? []
      : list.filter((role) => !restore.includes(role)).slice(0, 1);
  const testsLister = lister !== undefined && (lister.length > 0 || !Array.isArray(list));
  return {
    softDeleteTests: {
      deletedEvent: named('Deleted'),
      restoredEvent: named('Restored'),
      testsLister,
      lister: testsLister ? lister : [],
      duplicateFields,
    },
  };
}
