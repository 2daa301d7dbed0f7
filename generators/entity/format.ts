// Formats generated files with Prettier, using the app's own config when it has one, so the output
// is what `prettier --check` in the app expects.
import prettier from 'prettier';

/** slicekit's Prettier settings; a generated app ships the same `.prettierrc.json`. */
export const PRETTIER_DEFAULTS: prettier.Options = {
  printWidth: 100,
  singleQuote: true,
  trailingComma: 'all',
};

/** `text` formatted as the file at `file` (an absolute path: it picks the parser and config). */
export async function formatFile(text: string, file: string): Promise<string> {
  const config = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...PRETTIER_DEFAULTS, ...config, filepath: file });
}
