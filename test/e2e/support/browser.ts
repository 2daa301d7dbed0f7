// Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core, headless,
// with a fresh profile of its own; a failed test leaves a screenshot of its page under
// .work/artifacts/<suite>/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from './workspace.js';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Browser {
  page: Page;
  /** Saves a screenshot of the page as `<name>.png` under .work/artifacts/<suite>/. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowser(suite: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'slicekit-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    async screenshot(name) {
      const dir = join(repoRoot, '.work', 'artifacts', suite);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name.replace(/[^\w-]+/g, '-')}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
