// Reading a spec file: YAML or JSON (JSON is YAML), parse errors reported with line and column.
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { EntitySpecError } from './errors.js';
import { resolveSpec } from './resolve.js';
import type { EntityModel } from './types.js';

/** A spec file as read: its text (saved beside the slice) and the resolved model. */
export interface LoadedSpec {
  file: string;
  text: string;
  model: EntityModel;
}

/** Parses spec text; YAML syntax errors become problems naming the line. */
export function parseSpecText(text: string, source: string): unknown {
  const document = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new EntitySpecError(
      source,
      document.errors.map((error) => {
        const at = error.linePos?.[0];
        return {
          path: at ? `line ${at.line}, column ${at.col}` : '',
          message: (error.message.split('\n')[0] ?? error.message).replace(
            / at line \d+, column \d+:?$/,
            '',
          ),
          fix: 'correct the YAML (or JSON) syntax there',
        };
      }),
    );
  }
  return document.toJS();
}

/**
 * What the run has resolved already, by file: a spec file is read by the prompt's check, then by
 * the run (and, for a slice, by the app model), and resolving is what costs. Kept while the
 * file's text is the same; models are never changed once resolved.
 */
const resolved = new Map<string, LoadedSpec>();

/**
 * Reads, checks and resolves a spec file (resolved once per process while its text is the same).
 *
 * @example
 * const { model } = loadSpecFile('docs/examples/product.yaml');
 */
export function loadSpecFile(file: string): LoadedSpec {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EntitySpecError(
      file,
      [
        {
          path: '',
          message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
          fix: 'give the path of a YAML or JSON spec file, relative to where you run plop',
        },
      ],
      { cause: error },
    );
  }
  const known = resolved.get(file);
  if (known?.text === text) return known;
  const loaded = { file, text, model: resolveSpec(parseSpecText(text, file), file) };
  resolved.set(file, loaded);
  return loaded;
}
