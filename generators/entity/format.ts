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
 * The parser of a TypeScript file: Babel's, which prints the generated code as the `typescript`
 * parser `prettier --check` picks does (the snapshot and Prettier-stability tests compare them)
 * and loads and parses in about half the time. A config naming a parser keeps it.
 */
const parserOf = (file: string) => (/\.[cm]?ts$/.test(file) ? { parser: 'babel-ts' } : {});

/** `text` formatted as the file at `file` (an absolute path: it picks the parser and config). */
export async function formatFile(text: string, file: string): Promise<string> {
  const config = (await prettier.resolveConfig(file)) ?? {};
  const options = { ...PRETTIER_DEFAULTS, ...parserOf(file), ...config, filepath: file };
  let current = await prettier.format(text, options);
  for (let pass = 1; pass < (settles(file) ? MAX_PASSES : 1); pass++) {
    const next = await prettier.format(current, options);
    if (next === current) break;
    current = next;
  }
  return current;
}
