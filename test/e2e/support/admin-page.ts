// What the admin UI suites share: a demo serving /admin and one Chromium session on it for the
// whole suite (a screenshot of the page kept under .work/artifacts/<suite>/ for each failed test),
// the demo's API read beside the page, and a wait for the page to reach a state.
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { openBrowser, chromiumPath, type Browser } from './browser.js';
import { startDemo } from './demo.js';
import type { Served } from './processes.js';
import { scratchFolder } from './workspace.js';

export interface AdminDemo {
  readonly page: Page;
  readonly url: string;
  /** The demo's API answer to `path` (under /v1): its status and body. */
  api<T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
}

/**
 * Starts `npm run demo` with `env` (and the admin) and a browser before the suite's tests, and
 * stops both after them. `env` is read when the suite starts (a database URL known by then).
 */
export function useAdminDemo(suite: string, env: () => NodeJS.ProcessEnv): AdminDemo {
  let scratch: ReturnType<typeof scratchFolder> | undefined;
  let demo: Served | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(chromiumPath)) {
      if (process.env.REQUIRE_SERVICES === '1') throw new Error(`no Chromium at ${chromiumPath}`);
      console.warn(`admin UI: no Chromium at ${chromiumPath}; skipping`);
      this.skip();
    }
    scratch = scratchFolder(suite);
    demo = await startDemo({ DEMO_DIR: scratch.path, ...env(), ADMIN_ENABLED: 'true' });
    browser = await openBrowser(suite);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser) {
      console.log(`admin UI: screenshot ${await browser.screenshot(this.currentTest.title)}`);
    }
  });
  after(async () => {
    await browser?.close();
    await demo?.stop();
    scratch?.remove();
  });

  return {
    get page() {
      return browser!.page;
    },
    get url() {
      return demo!.url;
    },
    async api<T>(path: string, init?: RequestInit) {
      const res = await fetch(`${demo!.url}/v1${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...init?.headers },
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
  };
}

/** Resolves once `check` holds, polling for up to 10 s. */
export async function waitFor(
  check: () => Promise<boolean>,
  what = 'the expected state',
): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`the page did not reach ${what} within 10 s`);
}

/** The text of a column's cells in the page's table (`td.column-<source>`). */
export function cells(page: Page, source: string): Promise<string[]> {
  return page.locator(`tbody td.column-${source.replace('.', '\\.')}`).allTextContents();
}
