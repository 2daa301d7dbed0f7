// What each file of src/resources/ exports: React-Admin's <Resource> props, and which of the
// entity's routes require an idempotency key (the data provider sends one to those).
import type { ResourceProps } from 'react-admin';
import type { KeyRequired } from '@slicekit/runtime/admin';

export interface AdminResource extends ResourceProps {
  requiresKey: KeyRequired;
}
