// The app's structured logger: pino, one JSON object per line on stdout. Logged errors never
// carry row values: a database error is logged by its codes and the statement with placeholders
// (@slicekit/runtime/logging, docs/reliability.md).
import { destination as stdoutDestination, pino, type DestinationStream, type Logger } from 'pino';
import { safeLoggerOptions } from '@slicekit/runtime/logging';
import { logLevel } from './config.js';

export type { Logger };

/**
 * A pino logger at `level` writing to `destination`; tests pass `'silent'`, or a stream of their
 * own to read what was logged. By default stdout, written asynchronously: a request never waits
 * for the write of its line, lines logged while a write is in flight go out together, and what is
 * still buffered is written when the process exits (docs/operations.md#logs).
 */
export function createLogger(level: string = logLevel, destination?: DestinationStream): Logger {
  const options = { level, ...safeLoggerOptions() };
  return pino(options, destination ?? stdoutDestination({ dest: 1, sync: false }));
}
