/**
 * A browser tab on the dashboard for a test: a fresh context (nothing shared with another test) that
 * records what the page reported that a policy refused or a script threw — `close()` fails the test
 * when anything was — and signing in with a pasted key.
 */
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

export interface DashboardTab {
  page: Page;
  /** Content-Security-Policy refusals and uncaught script errors seen so far. */
  faults: string[];
  /** Opens `/dashboard/<path>` (default the home page) and signs in with `key`. */
  signIn(key: string, path?: string): Promise<void>;
  /** Closes the tab; fails when the page reported a fault. */
  close(): Promise<void>;
}

/** A new tab on the service at `baseUrl`, 1280×900. */
export async function openTab(browser: Browser, baseUrl: string): Promise<DashboardTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const faults: string[] = [];
  page.on('pageerror', (err) => faults.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) faults.push(m.text());
  });
  return {
    page,
    faults,
    async signIn(key, path = '') {
      await page.goto(`${baseUrl}/dashboard/${path}`);
      await page.getByLabel('API key').fill(key);
      await page.getByLabel('API key').press('Enter');
      await page.getByTestId('organization').waitFor();
    },
    async close() {
      await context.close();
      expect(faults).toEqual([]);
    },
  };
}
