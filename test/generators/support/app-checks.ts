// A generated app's `npm run lint` (ESLint, then `prettier --check .`) and `npm run typecheck`
// (`tsc --noEmit`), run in this process with the app's own configs, so that many apps are checked
// for the cost of loading ESLint, Prettier and TypeScript once. Each returns what the command
// would print as errors: an empty list when it would pass.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import ts from 'typescript';

/** ESLint's errors over the app, as `eslint .` in its folder finds them: `file:line message`. */
export async function eslintErrors(app: string): Promise<string[]> {
  // typescript-eslint's parser remembers every config folder it was loaded from in this process,
  // and refuses to guess between several: name the app's, as its one `eslint` process would.
  const eslint = new ESLint({
    cwd: app,
    overrideConfig: { languageOptions: { parserOptions: { tsconfigRootDir: app } } },
  });
  const results = await eslint.lintFiles(['.']);
  return results.flatMap((result) =>
    result.messages.map(
      (m) => `${relative(app, result.filePath)}:${m.line} ${m.message} (${m.ruleId ?? 'parser'})`,
    ),
  );
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesOf(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The files `prettier --check .` in the app would report, with the app's ignore files and config. */
export async function prettierErrors(app: string): Promise<string[]> {
  const ignorePath = [join(app, '.gitignore'), join(app, '.prettierignore')];
  const unformatted: string[] = [];
  for (const file of filesOf(app)) {
    const info = await prettier.getFileInfo(file, { ignorePath });
    if (info.ignored || !info.inferredParser) continue;
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    if (!(await prettier.check(readFileSync(file, 'utf8'), options))) {
      unformatted.push(relative(app, file));
    }
  }
  return unformatted;
}

/**
 * `tsc --noEmit` in each app, with its tsconfig.json, as `file(line): message` per app. The apps
 * share one program: their tsconfig.json files are the same and they declare nothing global, so
 * each file is checked as in its own app, and the runtime they import is checked once. The runtime
 * is read from this checkout's sources (the `slicekit-source` condition), as the end-to-end tests do.
 */
export function typeErrors(apps: readonly string[]): Map<string, string[]> {
  const configs = apps.map((app) => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(app, 'tsconfig.json'),
      { customConditions: ['slicekit-source'] },
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error(`${app}/tsconfig.json cannot be read`);
    return config;
  });
  const options = configs[0]!.options;
  const differing = configs.filter(
    (c) =>
      JSON.stringify({ ...c.options, configFilePath: '' }) !==
      JSON.stringify({ ...options, configFilePath: '' }),
  );
  if (differing.length > 0) throw new Error('the apps have different compiler options');
  const program = ts.createProgram({ rootNames: configs.flatMap((c) => c.fileNames), options });
  const diagnostics = [...configs.flatMap((c) => c.errors), ...ts.getPreEmitDiagnostics(program)];
  const errors = new Map(apps.map((app) => [app, [] as string[]]));
  for (const d of diagnostics) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const app = apps.find((a) => d.file && !relative(a, d.file.fileName).startsWith('..'));
    if (!d.file || d.start === undefined || !app) {
      // Outside every app (the runtime): each app would report it.
      for (const list of errors.values()) list.push(d.file ? `${d.file.fileName}: ${text}` : text);
      continue;
    }
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    errors.get(app)!.push(`${relative(app, d.file.fileName)}(${line + 1}): ${text}`);
  }
  return errors;
}
