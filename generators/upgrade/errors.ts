// The errors an upgrade raises: changes that may lose data, refused until acknowledged, and
// conflicts left in the files for the user to resolve. Either makes the command exit non-zero.
import { SlicekitError } from '@slicekit/runtime/domain';
import type { DataRisk } from './changes.js';

/** A change that can lose or refuse data, asked for without `--accept-data-loss`. */
export class DataLossError extends SlicekitError {
  override name = 'DataLossError';
  readonly table: string;
  readonly risks: readonly DataRisk[];

  constructor(table: string, risks: readonly DataRisk[]) {
    const lines = risks.map((r) => `  - ${r.column} ${r.risk}. To keep the data: ${r.fix}`);
    super(
      'upgrade.data_loss',
      `The change to the ${table} table can lose or refuse data, so nothing was written:\n` +
        `${lines.join('\n')}\n` +
        'Run again with --accept-data-loss to write it anyway (back the data up first), or ' +
        'change the spec as suggested.',
    );
    this.table = table;
    this.risks = risks;
  }
}

/** The upgrade wrote files with conflict markers (or kept files it would have changed). */
export class UpgradeConflictError extends SlicekitError {
  override name = 'UpgradeConflictError';
  /** App-relative paths to resolve, each with why. */
  readonly files: readonly { path: string; reason: string }[];

  constructor(files: readonly { path: string; reason: string }[]) {
    const lines = files.map((f) => `  - ${f.path}: ${f.reason}`);
    super(
      'upgrade.conflicts',
      `${files.length} file${files.length === 1 ? '' : 's'} to resolve by hand:\n${lines.join('\n')}\n` +
        'Look for <<<<<<< yours ... ======= ... >>>>>>> generated, keep what you want, remove ' +
        'the markers. Everything else is written, the migration included.',
    );
    this.files = files;
  }
}
