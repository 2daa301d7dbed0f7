// The shapes a generated slice and the app agree on: the slice module, its dependencies, the
// CRUD operations a route file maps and the options that exclude some of them.
import type { Router } from 'express';
import type { Knex } from 'knex';
import type { ListResource, JsonSchema } from '../list-query/index.js';
import type { SliceDescription } from '../openapi/index.js';
import type { ReferenceDataSet } from '../reference-data/index.js';

/** A pino-compatible logger; the app passes its own. */
export interface CrudLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** What every slice's `mount` receives from the app. */
export interface SliceDeps {
  knex: Knex;
  logger: CrudLogger;
}

/** A slice's DTO: found at start-up through its slice, never through a registration list. */
export interface SliceDto {
  /** Schema name, e.g. `ProductDto`. */
  name: string;
  /** JSON Schema of the DTO. */
  schema: JsonSchema;
  /** The list-query resource built from it, when the slice has a list route. */
  resource?: ListResource<unknown>;
}

/**
 * What `src/slices/<name>/index.ts` default-exports. `discoverSlices` imports every one at
 * start-up and the app calls `mount` on one shared router.
 */
export interface SliceModule {
  /** The slice's folder name, e.g. `products`. */
  name: string;
  dto: SliceDto;
  /** Adds the slice's routes to `router` (mounted by the app at `/v1`). */
  mount(router: Router, deps: SliceDeps): void;
  /** The routes as data for `@slicekit/runtime/openapi`. @default none (not documented) */
  openapi?: SliceDescription;
  /**
   * Fixed rows of the slice's table, applied after every migration run (by the migrate command
   * and at start-up alike), inserted when absent and never overwritten. @default none
   */
  referenceData?: readonly ReferenceDataSet[];
  /**
   * Whether some of its routes require an idempotency key, so the app must register the guard.
   * @default false
   */
  idempotent?: boolean;
}

/** The six generated operations (the spec's `CrudOp`). */
export const CrudOp = {
  GetById: 'GetById',
  GetList: 'GetList',
  Create: 'Create',
  Update: 'Update',
  Delete: 'Delete',
  Action: 'Action',
} as const;

export type CrudOp = (typeof CrudOp)[keyof typeof CrudOp];

/** Every `CrudOp`, in mapping order. */
export const CRUD_OPS: readonly CrudOp[] = Object.values(CrudOp);

/** The options of a generated `map<Entity>Crud(router, deps, options)`. */
export interface CrudMapOptions {
  /**
   * Operations not to map. `Update` and `Action` stand for every update method and every action:
   * they are excluded as a whole, never one method at a time.
   * @default []
   */
  exclude?: readonly CrudOp[];
}
