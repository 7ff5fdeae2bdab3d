/**
 * The dashboard's Policies page in a real browser against a real service on the test database: a
 * policy created in the editor (an invalid body first, whose validation issue is shown with its JSON
 * path), its rules summarized, simulated against a seeded scan, backtested over the seeded scans with
 * the action diff shown, and deleted. DASHBOARD_SCREENSHOTS=1 also writes docs/images/dashboard-policy*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { launchChromium, requireBuiltDashboard, screenshot } from './chromium.ts';
import { openTab, type DashboardTab } from './session.ts';

/** A policy: block any text with an email address; allow the rest. */
const POLICY = {
  name: 'No emails to the model',
  mode: 'enforce',
  rules: [
    {
      id: 'no-emails',
      name: 'Block email addresses',
      when: { all_of: [{ detector: 'pii', label_in: ['EMAIL_ADDRESS'] }, { surface_in: ['user_message'] }] },
      then: { action: 'blocked' },
    },
  ],
  default_action: 'allowed',
};

/** The same policy with a score out of range, which the API refuses naming the field's path. */
const INVALID = {
  ...POLICY,
  rules: [{ ...POLICY.rules[0], when: { all_of: [{ detector: 'prompt_injection', score_above: 1.5 }] } }],
};

let app: TestApp;
let org: TestOrg;
let browser: Browser;
let tab: DashboardTab;
let page: Page;
/** The seeded scans: one with an email address, one without. */
let emailScan: { id: string; decision: { action: string } };
let plainScan: { id: string; decision: { action: string } };

/** A scan through the real API (the fast tier: no model is waited for). */
async function seedScan(text: string) {
  const response = await fetch(`${app.baseUrl}/v1/scans`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text },
      options: { tier: 'fast' },
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as typeof emailScan;
}

beforeAll(async () => {
  requireBuiltDashboard();
  browser = await launchChromium();
  app = await startTestApp();
  org = await buildOrg(app, 'Acme Robotics');
  plainScan = await seedScan('What is the capital of France?');
  emailScan = await seedScan('Please send the invoice to jane.doe@example.com by Friday.');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});
afterEach(async () => {
  await tab?.close();
});

describe('the Policies page', () => {
  it('creates, simulates, backtests and deletes a policy', async () => {
    expect(plainScan.decision.action).toBe('allowed');
    expect(emailScan.decision.action).not.toBe('blocked');
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(org.admin, 'policies');
    await page.getByText('No policies yet').waitFor();

    // The editor starts from a template; an invalid body shows the API's issue with its path.
    await page.getByRole('link', { name: 'New policy' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/policies/new');
    const editor = page.getByLabel('Policy body (JSON)');
    expect(JSON.parse(await editor.inputValue())).toHaveProperty('rules');
    await editor.fill(JSON.stringify(INVALID, null, 2));
    await page.getByRole('button', { name: 'Create policy' }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.locator('.problem-code').textContent()).toBe('request.validation_failed');
    expect(await problem.textContent()).toContain('rules.0.when.all_of.0.score_above must be a number from 0 to 1');
    const summary = page.getByTestId('policy-summary');
    expect(await summary.textContent()).toContain('prompt_injection score > 1.5');
    // The rule the issue is in shows it too.
    expect(await summary.locator('.rule-issues').textContent()).toContain('rules.0.when.all_of.0.score_above');
    await screenshot(page, 'policy-editor');

    // A valid body creates the policy and opens its page.
    await editor.fill(JSON.stringify(POLICY, null, 2));
    expect(await summary.textContent()).toContain('pii finds EMAIL_ADDRESS');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('heading', { name: POLICY.name }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/policies\/pol_[0-9A-Z]{26}$/);
    expect(await page.getByTestId('policy-revision').textContent()).toMatch(/^rev_/);
    // Not the default (the template says `"is_default": false`): the page says what that means.
    expect(await page.getByTestId('policy-default-state').textContent()).toContain('Not the default');
    expect(await page.getByTestId('summary-default').textContent()).toContain(
      'no: it decides only the scans that name it',
    );

    // Simulate against the seeded scan with an email address, picked from the recent scans.
    const recent = page.getByLabel('Recent scan');
    await expect.poll(() => recent.locator('option').count()).toBe(3);
    await recent.selectOption(emailScan.id);
    expect(await page.getByLabel('Scan id').inputValue()).toBe(emailScan.id);
    await page.getByRole('button', { name: 'Simulate', exact: true }).click();
    await page.getByTestId('simulation').waitFor();
    expect(await page.getByTestId('simulated-action').textContent()).toBe('blocked');
    expect(await page.getByTestId('original-action').textContent()).toBe(emailScan.decision.action);
    expect(await page.getByTestId('simulated-reason').textContent()).toBe('rule_matched');
    expect(await page.getByTestId('simulated-rule').textContent()).toBe('Block email addresses (no-emails)');
    await screenshot(page, 'policy-simulate');

    // Backtest over the default window (the last week, up to the next minute): both seeded scans.
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.getByTestId('backtest').waitFor();
    expect(await page.getByTestId('backtest-evaluated').textContent()).toBe('2');
    expect(await page.getByTestId('backtest-changed').textContent()).toBe('1');
    expect(await page.getByTestId(`diff-${emailScan.decision.action}-blocked`).textContent()).toBe('1');
    expect(await page.getByTestId('diff-allowed-allowed').textContent()).toBe('1');
    expect(await page.getByTestId('count-blocked').textContent()).toContain('blocked01+1');
    await page.getByTestId('backtest').getByRole('link', { name: emailScan.id }).waitFor();
    await screenshot(page, 'policy-backtest');

    // Make default: a replace with is_default set (a new revision), said on the page and in the heading.
    const before = await page.getByTestId('policy-revision').textContent();
    await page.getByRole('button', { name: 'Make default' }).click();
    await expect.poll(() => page.getByTestId('policy-revision').textContent()).not.toBe(before);
    expect(await page.getByTestId('policy-default-state').textContent()).toContain(
      'it decides every scan that names no policy',
    );
    expect(await page.getByRole('heading', { name: POLICY.name }).textContent()).toContain('default');
    expect(await page.getByTestId('summary-default').textContent()).toContain('yes');
    const made = await fetch(`${app.baseUrl}/v1/policies?limit=10`, {
      headers: { authorization: `Bearer ${org.admin}` },
    });
    expect(((await made.json()) as { data: { name: string; is_default: boolean }[] }).data).toEqual([
      expect.objectContaining({ name: POLICY.name, is_default: true }),
    ]);

    // Editing replaces it: a new revision, the rule id kept, the draft reset to what was stored.
    const revision = await page.getByTestId('policy-revision').textContent();
    const stored = JSON.parse(await editor.inputValue()) as typeof POLICY;
    expect(stored.rules[0]!.id).toBe('no-emails');
    await editor.fill(JSON.stringify({ ...stored, default_action: 'warned' }, null, 2));
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => page.getByTestId('policy-revision').textContent()).not.toBe(revision);
    expect(JSON.parse(await editor.inputValue())).toMatchObject({ default_action: 'warned' });

    // The list shows it, beside a default policy made through the API; its page deletes it after a confirmation.
    const baseline = await fetch(`${app.baseUrl}/v1/policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Baseline', is_default: true, rules: [], default_action: 'allowed' }),
    });
    expect(baseline.status).toBe(201);
    await page.getByRole('link', { name: '← All policies' }).click();
    const row = page.getByRole('row').filter({ hasText: POLICY.name });
    await row.waitFor();
    expect(await row.textContent()).toContain('enforce');
    await screenshot(page, 'policies');
    await row.getByRole('link', { name: POLICY.name }).click();
    await page.getByRole('button', { name: 'Delete policy' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    const remaining = page.getByRole('row').filter({ hasText: 'Baseline' });
    await remaining.waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/policies');
    expect(await remaining.textContent()).toContain('default');
    expect(await row.count()).toBe(0);
  });

  it('shows the problem of an address naming no policy', async () => {
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(org.admin, 'policies/pol_00000000000000000000000000');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.locator('.problem-code').textContent()).toBe('policies.not_found');
  });
});
