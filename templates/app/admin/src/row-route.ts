// A route of the row on the page (an action, an update, a restore) as its button calls it, shared by
// ActionButton (actions.tsx) and RestoreButton (restore.tsx): once at a time, with the ETag the
// row was read with as If-Match (a row changed since is refused with 412 and the same message as
// the edit form's), then `done` and the page refreshed, or the API's problem shown.
import { useState } from 'react';
import {
  useDataProvider,
  useNotify,
  useRecordContext,
  useRefresh,
  useResourceContext,
} from 'react-admin';
import type { ActionParams, SlicekitDataProvider } from '@slicekit/runtime/admin';

/** A route's field errors, by field, for the form that sent its parameters. */
export type FieldErrors = Record<string, string> | undefined;

/**
 * The row in context (undefined outside one), whether its route is being called, and `call`,
 * which answers the API's field errors when it refuses the parameters.
 */
export function useRowRoute(label: string) {
  const record = useRecordContext();
  const resource = useResourceContext();
  const dataProvider = useDataProvider<SlicekitDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [pending, setPending] = useState(false);
  const call = async (params: Omit<ActionParams, 'id' | 'previousData'>): Promise<FieldErrors> => {
    if (pending || !record || !resource) return undefined;
    setPending(true);
    try {
      // The row as the page read it: its ETag goes as If-Match (a list's rows carry none).
      await dataProvider.action(resource, { id: record.id, previousData: record, ...params });
      notify(`${label}: done`, { type: 'success' });
      refresh();
      return undefined;
    } catch (error) {
      // A 412's message is the data provider's STALE_ROW_MESSAGE, as the edit form shows it.
      notify(error instanceof Error ? error.message : String(error), { type: 'error' });
      return (error as { body?: { errors?: Record<string, string> } }).body?.errors;
    } finally {
      setPending(false);
    }
  };
  return { record: resource ? record : undefined, pending, call };
}
