// Formats generated files with Prettier, using the app's own config when it has one, so the output
// is what `prettier --check` in the app expects.
import prettier from 'prettier';

/** slicekit's Prettier settings; a generated app ships the same `.prettierrc.json`. */
export const PRETTIER_DEFAULTS: prettier.Options = {
  printWidth: 100,
  singleQuote: true,
  trailingComma: 'all',
};

/**
 * Prettier is not idempotent on every input: a long `api().post(...).send({...})` chain of a
 * generated test breaks differently on a second pass, and `prettier --check` compares against one
 * more pass. Test files are formatted until the text stops changing; every other file the
 * templates write is stable after one pass (test/generators/entity.test.ts checks a wide slice),
 * and a second pass over each would double the time a run spends in Prettier.
 */
const MAX_PASSES = 4;
const settles = (file: string): boolean => /\.test\.ts$/.test(file);

/**
 * The parser of a TypeScript file (`.tsx` too: the admin's pages): Babel's, which prints the
 * generated code as the `typescript` parser `prettier --check` picks does (the snapshot and
 * Prettier-stability tests compare them) and loads and parses in about half the time; Prettier's
 * TypeScript plugin is then never loaded. A config naming a parser keeps it.
 */
const parserOf = (file: string) => (/\.[cm]?tsx?$/.test(file) ? { parser: 'babel-ts' } : {});

/**
 * What this process formatted already, by options and text: a run of several entities rewrites
 * the app-wide files (the admin's index, the events index) once per entity, mostly to the same
 * text, and an existing file's rendering is formatted to compare it before it is written.
 */
const formatted = new Map<string, Promise<string>>();
const MAX_REMEMBERED = 500;

/** `text` formatted as the file at `file` (an absolute path: it picks the parser and config). */
export async function formatFile(text: string, file: string): Promise<string> {
  const config = (await prettier.resolveConfig(file)) ?? {};
  const options = { ...PRETTIER_DEFAULTS, ...parserOf(file), ...config, filepath: file };
  const key = `${JSON.stringify(options)}\0${text}`;
  let result = formatted.get(key);
  if (!result) {
    if (formatted.size >= MAX_REMEMBERED) formatted.clear();
    result = settle(text, file, options);
    formatted.set(key, result);
    // A failure (a syntax error in an edited template) is not remembered.
    result.catch(() => formatted.delete(key));
  }
  return result;
}

async function settle(text: string, file: string, options: prettier.Options): Promise<string> {
  let current = await prettier.format(text, options);
  for (let pass = 1; pass < (settles(file) ? MAX_PASSES : 1); pass++) {
    const next = await prettier.format(current, options);
    if (next === current) break;
    current = next;
  }
  return current;
}
