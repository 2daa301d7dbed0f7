// The admin's app-level modules that the entity pages (admin/src/resources/<entity>.tsx) import.
// An app made by an earlier slicekit may lack one a page of this version imports (nested.tsx came
// later than the admin, restore.tsx and the row-route.ts it imports later still): each run of
// `npx plop entity`, an upgrade's included, adds the modules missing from an app that has the
// admin. A module the app has is the user's and no base copy says what they changed, so it is
// never rewritten: the run says which export it lacks instead.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ActionType } from 'plop';
import { appTemplates } from '../app/paths.js';

/**
 * Each module the pages import (or a module of this list imports), with the names imported from
 * it. RestoreButton has a module of its own, not actions.tsx: an actions.tsx older than it is the
 * user's, and a page of a soft-deleted entity still type-checks once restore.tsx is added.
 */
export const ADMIN_MODULES: readonly { path: string; exports: readonly string[] }[] = [
  { path: 'admin/src/actions.tsx', exports: ['ActionButton'] },
  { path: 'admin/src/nested.tsx', exports: ['NestedLinks'] },
  { path: 'admin/src/resource.ts', exports: ['AdminResource'] },
  { path: 'admin/src/restore.tsx', exports: ['RestoreButton'] },
  { path: 'admin/src/row-route.ts', exports: ['useRowRoute'] },
];

/** The app has the admin (its entry point), so its pages need the modules. */
const hasAdmin = (appDir: string) => existsSync(join(appDir, 'admin', 'src', 'main.tsx'));

export interface AdminModuleStep {
  path: string;
  /** Missing: the run adds it. */
  add: boolean;
  /** Kept, without these exports the pages import. */
  lacks: string[];
}

/** What a run does to each module: add it (missing), or keep it, naming the exports it lacks. */
export function adminModulesPlan(appDir: string): AdminModuleStep[] {
  if (!hasAdmin(appDir)) return [];
  return ADMIN_MODULES.flatMap(({ path, exports }): AdminModuleStep[] => {
    const file = join(appDir, path);
    if (!existsSync(file)) return [{ path, add: true, lacks: [] }];
    const text = readFileSync(file, 'utf8');
    const lacks = exports.filter(
      (name) => !new RegExp(`export (function|const|interface|type|class) ${name}\\b`).test(text),
    );
    return lacks.length ? [{ path, add: false, lacks }] : [];
  });
}

/** Why a kept module needs the user's attention, for the run's output and the dry run's plan. */
export function lacking(path: string, lacks: readonly string[]): string {
  return `yours, kept; it has no ${lacks.join(', ')}, which the admin pages import: see ${join(appTemplates, path)}`;
}

/**
 * The action adding the admin modules the app lacks. The templates hold no Handlebars (the app
 * generator renders them as it would any file), so their text is the file's.
 */
export function addAdminModules(appDir: string): ActionType {
  return async function addAdminModules() {
    const plan = adminModulesPlan(appDir);
    if (plan.length === 0) return '[SKIPPED] admin/src modules (present)';
    return plan
      .map(({ path, add, lacks }) => {
        if (!add) return `[KEPT] ${path} (${lacking(path, lacks)})`;
        const file = join(appDir, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, readFileSync(join(appTemplates, path), 'utf8'));
        return `${path} (added: the admin pages import it)`;
      })
      .join('\n');
  };
}
