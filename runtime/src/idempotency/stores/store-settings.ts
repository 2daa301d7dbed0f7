// Settings shared by the distributed stores, with their defaults in one place.
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/** A pino-compatible logger; the stores log only what an operator must act on. */
export interface StoreLogger {
  info(objOrMsg: unknown, msg?: string): void;
  warn(objOrMsg: unknown, msg?: string): void;
  error(objOrMsg: unknown, msg?: string): void;
  debug(objOrMsg: unknown, msg?: string): void;
}

/** Settings every distributed store accepts beside its connection. */
export interface DistributedStoreSettings {
  /**
   * Longest time one store operation (connection checkout included) may take before the request
   * fails with a 500. Keeps a silent store from hanging requests.
   * @default 5000
   */
  operationTimeoutMs?: number;
  /**
   * Longest time to open a new connection, for connections the store opens from a URL.
   * @default 5000
   */
  connectTimeoutMs?: number;
  /** Where the store reports background failures (purge, reconnects). @default no logging */
  logger?: StoreLogger;
}

/**
 * Settings of the PostgreSQL and MySQL store. Connections, pool size and timeouts are the app's
 * Knex instance's own.
 */
export interface RelationalStoreSettings {
  /**
   * Table holding the keys; `schema.table` is accepted on PostgreSQL.
   * @default 'slicekit_idempotency_keys'
   */
  tableName?: string;
  /**
   * Run `purgeExpired()` every this many milliseconds while the app runs; 0 turns it off.
   * @default 0
   */
  purgeIntervalMs?: number;
  /**
   * Rows deleted per purge statement, so one purge never holds many row locks for long.
   * @default 1000
   */
  purgeBatchSize?: number;
  /** Where the store reports background failures (the purge). @default no logging */
  logger?: StoreLogger;
}

export const DEFAULT_TABLE_NAME = 'slicekit_idempotency_keys';

export type ResolvedRelationalSettings = Required<Omit<RelationalStoreSettings, 'logger'>> & {
  logger: StoreLogger | undefined;
};

function positive(store: string, name: string, value: number, allowZero = false): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      store,
      `${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${value}`,
    );
  }
  return value;
}

/** Applies the defaults of `DistributedStoreSettings` and checks the numbers. */
export function resolveDistributedSettings(
  store: string,
  settings: DistributedStoreSettings,
): Required<Omit<DistributedStoreSettings, 'logger'>> & { logger: StoreLogger | undefined } {
  return {
    operationTimeoutMs: positive(store, 'operationTimeoutMs', settings.operationTimeoutMs ?? 5000),
    connectTimeoutMs: positive(store, 'connectTimeoutMs', settings.connectTimeoutMs ?? 5000),
    logger: settings.logger,
  };
}

/** Applies the defaults of `RelationalStoreSettings` and checks them. */
export function resolveRelationalSettings(
  store: string,
  settings: RelationalStoreSettings,
): ResolvedRelationalSettings {
  const tableName = settings.tableName ?? DEFAULT_TABLE_NAME;
  const part = '[A-Za-z_][A-Za-z0-9_]{0,62}';
  if (!new RegExp(`^(${part}\\.)?${part}$`).test(tableName)) {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      store,
      `tableName "${tableName}" must be a plain identifier (letters, digits, _), optionally schema-qualified`,
    );
  }
  return {
    tableName,
    purgeIntervalMs: positive(store, 'purgeIntervalMs', settings.purgeIntervalMs ?? 0, true),
    purgeBatchSize: Math.floor(positive(store, 'purgeBatchSize', settings.purgeBatchSize ?? 1000)),
    logger: settings.logger,
  };
}
