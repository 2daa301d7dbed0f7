// Every entity's admin pages (src/resources/<entity>.tsx). Written by `npx plop entity` from the
// app's entity specs, like src/slices/events.ts; the pages themselves are yours to edit.
import type { AdminResource } from './resource.js';

export const resources: AdminResource[] = [];
