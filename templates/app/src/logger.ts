// The app's structured logger: pino, one JSON object per line on stdout.
import { pino, type Logger } from 'pino';
import { logLevel } from './config.js';

export type { Logger };

/** A pino logger at `level`; tests pass `'silent'`. */
export function createLogger(level: string = logLevel): Logger {
  return pino({ level });
}
