/**
 * What the dashboard's browser tests stand on: Debian's `chromium` (playwright-core downloads no
 * browser; `.ci/run` installs the package when it is missing) and the built dashboard. Each is
 * required: a test that cannot run says what to install or build, rather than passing by skipping.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DASHBOARD_DIST } from '../../api/dashboard.ts';

/** The browser the tests drive: CHROMIUM_PATH, else Debian's package. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium.
 * @throws Error saying how to install it, when it is not there.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the dashboard's browser tests need Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  // --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/**
 * @throws Error saying how to build the dashboard, when dist/dashboard/ holds no build (`npm ci` and
 * `npm test` build it).
 */
export function requireBuiltDashboard(): void {
  if (!existsSync(path.join(DASHBOARD_DIST, 'index.html')))
    throw new Error(`${DASHBOARD_DIST} holds no build: run npm run build:dashboard (npm ci and npm test run it)`);
}

/** Where screenshots go when DASHBOARD_SCREENSHOTS is set (docs/images/dashboard-<name>.png); else nowhere. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.DASHBOARD_SCREENSHOTS) return;
  const file = path.resolve(import.meta.dirname, '../../docs/images', `dashboard-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
}

/** Everything the page keeps where a secret must never be: both storages, its cookies and its address. */
export function storedState(page: Page): Promise<string> {
  return page.evaluate(() =>
    JSON.stringify({
      local: { ...window.localStorage },
      session: { ...window.sessionStorage },
      cookie: document.cookie,
      url: window.location.href,
      history: window.history.state as unknown,
    }),
  );
}
