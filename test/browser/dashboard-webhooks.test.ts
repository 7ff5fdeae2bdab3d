/**
 * The dashboard's Webhooks pages in a real browser against a real service, on a database of its own
 * (its webhook pump claims every organization's deliveries) and a local HTTPS receiver trusted
 * through the test CA: a webhook created with its secret shown once, a blocked scan's delivery
 * appearing with its status and the receiver's answer, a redelivery, a secret rotation with a grace
 * period (the next delivery is signed with both secrets) and the deletion.
 */
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, isolatedDatabase, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Received, type Receiver } from '../support/receiver.ts';
import { launchChromium, requireBuiltDashboard, screenshot, storedState } from './chromium.ts';
import { openTab, type DashboardTab } from './session.ts';

const SSN_TEXT = 'my ssn is 536-22-1234 please file it';
const BLOCK_SSN = {
  name: 'block SSNs',
  is_default: true,
  rules: [{ name: 'ssn', when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] }, then: { action: 'blocked' } }],
  default_action: 'allowed',
};

let app: TestApp;
let org: TestOrg;
let receiver: Receiver;
let browser: Browser;
let tab: DashboardTab;
let page: Page;

/** A call to the API as the organization's admin. */
async function api(method: string, path: string, json?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

/** The `v1=` signatures of a delivery that verify with `secret` (docs/webhook-receivers.md). */
function signedWith(r: Received, secret: string): boolean {
  const header = String(r.headers['service-signature']);
  const t = /t=(\d+)/.exec(header)?.[1];
  const mac = createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex');
  return header.split(',').includes(`v1=${mac}`);
}

beforeAll(async () => {
  requireBuiltDashboard();
  browser = await launchChromium();
  receiver = await startReceiver(() => ({ status: 200, body: '{"received":true}' }));
  app = await startTestApp({
    env: {
      DATABASE_URL: await isolatedDatabase(),
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
      WEBHOOK_CA_FILE: TEST_CA_FILE,
      WEBHOOK_TIMEOUT_MS: '5000',
    },
  });
  org = await buildOrg(app, 'Acme Robotics');
  expect((await api('POST', '/v1/policies', BLOCK_SSN)).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await receiver?.close();
});
afterEach(async () => {
  await tab?.close();
});

/** Scans `text` as the organization (its policy blocks SSNs): the scan's events go to its webhooks. */
async function scanText(text: string): Promise<void> {
  const scan = await api('POST', '/v1/scans', {
    kind: 'content',
    surface: 'user_message',
    content: { type: 'text', text },
    options: { tier: 'fast' },
  });
  expect((scan.body as { decision: { action: string } }).decision.action).toBe('blocked');
}

/** Clicks Refresh until the deliveries table has `n` rows reading `status`. */
async function refreshUntil(status: string, n: number): Promise<void> {
  const rows = page.locator('table.deliveries tbody tr').filter({ hasText: status });
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.getByRole('button', { name: 'Refresh' }).waitFor({ state: 'visible' });
        return rows.count();
      },
      { timeout: 20_000, interval: 500 },
    )
    .toBe(n);
}

describe('the Webhooks page', () => {
  it('creates a webhook, shows its deliveries, redelivers, rotates the secret and deletes it', async () => {
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(org.admin, 'webhooks');
    await page.getByText('This organization has no webhooks yet.').waitFor();

    // Create: the signing secret is shown once, never stored.
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('scan.blocked').check();
    await page.getByLabel('Description').fill('Security alerts to the SIEM');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('new-secret').textContent())!;
    expect(secret).toMatch(/^whsec_\w{43}$/);
    const row = page.getByRole('row').filter({ hasText: 'Security alerts to the SIEM' });
    await row.waitFor();
    expect(await row.textContent()).toContain('scan.blocked');
    await screenshot(page, 'webhooks');
    expect(await storedState(page)).not.toContain(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);

    // Its page: settings, and no deliveries yet.
    await row.getByRole('link', { name: receiver.url }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/dashboard\/webhooks\/wh_\w{26}$/);
    const hookId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(await page.getByTestId('webhook-url').textContent()).toBe(receiver.url);
    await page.getByText('No deliveries yet').waitFor();

    // A blocked scan is delivered, signed with the secret shown, and appears as succeeded.
    await scanText(SSN_TEXT);
    const [first] = await receiver.waitFor(1, 20_000);
    expect(signedWith(first!, secret)).toBe(true);
    await refreshUntil('succeeded', 1);
    const delivered = page.locator('table.deliveries tbody tr').first();
    expect(await delivered.textContent()).toContain('scan.blocked');
    expect(await delivered.locator('td').nth(3).textContent()).toBe('200');
    expect(await delivered.textContent()).toContain('{"received":true}');

    // Redeliver: a new attempt chain of the same event, marked as a redelivery.
    await delivered.getByRole('button', { name: 'Redeliver' }).click();
    const [, again] = await receiver.waitFor(2, 20_000);
    expect(again!.headers['service-event-id']).toBe(first!.headers['service-event-id']);
    await refreshUntil('succeeded', 2);
    await page.locator('table.deliveries .tag', { hasText: 'redelivery' }).waitFor();

    // A receiver that fails: the delivery is failed, with its answer and the next attempt's time.
    receiver.respond = () => ({ status: 503, body: 'down for maintenance' });
    await scanText(SSN_TEXT);
    await receiver.waitFor(3, 20_000);
    await refreshUntil('failed', 1);
    const failed = page.locator('table.deliveries tbody tr').filter({ hasText: 'failed' });
    expect(await failed.locator('td').nth(3).textContent()).toBe('503');
    expect(await failed.textContent()).toContain('down for maintenance');
    expect(await failed.textContent()).toContain('next attempt');
    expect(await failed.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
    await expect.poll(() => page.getByTestId('last-failure').textContent()).not.toBe('never');
    receiver.respond = () => ({ status: 200, body: '{"received":true}' });
    await screenshot(page, 'webhook-deliveries');

    // Rotate with a one-hour grace: a new secret, shown once; deliveries carry both signatures.
    await page.getByLabel('Keep the old secret valid for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm rotate' }).click();
    const rotated = (await page.getByTestId('new-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_\w{43}$/);
    expect(rotated).not.toBe(secret);
    expect(await page.getByTestId('grace-expires').textContent()).toMatch(/still accepted until/);
    expect(await storedState(page)).not.toContain(rotated);
    await page.getByRole('button', { name: 'Done' }).click();
    const succeeded = page.locator('table.deliveries tbody tr').filter({ hasText: 'succeeded' });
    await succeeded.first().getByRole('button', { name: 'Redeliver' }).click();
    const fourth = (await receiver.waitFor(4, 20_000))[3]!;
    expect(signedWith(fourth, rotated)).toBe(true);
    expect(signedWith(fourth, secret)).toBe(true);

    // Delete: back to the list, which is empty again; the API no longer knows it.
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByText('This organization has no webhooks yet.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/webhooks');
    expect((await api('GET', `/v1/webhooks/${hookId}`)).status).toBe(404);
  });

  it("shows the API's problem for a webhook that does not exist, and for a refused URL", async () => {
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(org.admin, 'webhooks/wh_00000000000000000000000000');
    expect(await page.getByRole('alert').locator('.problem-code').textContent()).toBe('webhooks.not_found');

    await page.getByRole('link', { name: '← All webhooks' }).click();
    await page.getByLabel('URL').fill('https://10.0.0.7/hook');
    await page.getByLabel('scan.flagged').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    expect(await page.getByRole('alert').locator('.problem-code').textContent()).toBe('webhooks.url_refused');
  });
});
