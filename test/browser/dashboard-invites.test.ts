/**
 * Accepting an invite in a real browser: the invite's link (`/dashboard/invites/accept#token=…`)
 * opens the dashboard's accept page, which takes the token out of the address, signs in with SSO
 * through a real OIDC provider's login and consent in a popup (test/support/oidc-login-issuer.ts),
 * and calls `POST /v1/invites/{token}:accept` with that session — the invitee joins. Each refusal
 * (another email, a revoked invite, an expired one) is said in words with the API's problem; a link
 * without a token says so, and a link of the old shape (`/invites/accept#token=…`) is redirected there
 * with its token. Without the dashboard's SSO, the accept page says why an invite cannot
 * be accepted and the Members page offers no invite form.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startLoginIssuer, type LoginIssuer } from '../support/oidc-login-issuer.ts';
import { launchChromium, requireBuiltDashboard, storedState } from './chromium.ts';
import { openTab, type DashboardTab } from './session.ts';

let issuer: LoginIssuer;
let app: TestApp;
let org: TestOrg;
let browser: Browser;
let tab: DashboardTab;
let page: Page;

beforeAll(async () => {
  requireBuiltDashboard();
  browser = await launchChromium();
  issuer = await startLoginIssuer();
  app = await startTestApp({ env: issuer.env() });
  issuer.register(app.baseUrl);
  org = await buildOrg(app, 'Invite Org');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await issuer?.close();
});
afterEach(async () => {
  await tab?.close();
});

/** A person unknown to the issuer's organizations: their email is `<login>@example.com`. */
const person = () => `person-${randomBytes(4).toString('hex')}`;

/** Invites `email` as a member; the accept link's path and fragment, and the invite's id. */
async function invite(email: string): Promise<{ link: string; id: string; token: string }> {
  const r = await call(app, 'POST', '/v1/invites', { key: org.admin, json: { email, role: 'member' } });
  expect(r.status, r.text).toBe(201);
  const url = new URL(r.body.accept_url as string);
  expect(url.pathname).toBe('/dashboard/invites/accept');
  const token = /^#token=([\w-]{43})$/.exec(url.hash)![1]!;
  return { link: `${app.baseUrl}${url.pathname}${url.hash}`, id: r.body.invite.id as string, token };
}

/** A new tab on `link` (nothing off loopback: the issuer's pages link a web font). */
async function open(link: string, on: TestApp = app): Promise<void> {
  tab = await openTab(browser, on.baseUrl);
  page = tab.page;
  await page.context().route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  await page.goto(link);
}

/** Clicks "Sign in with SSO and accept", signs in at the issuer as `login` and consents. */
async function acceptAs(login: string): Promise<void> {
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('button', { name: 'Sign in with SSO and accept' }).click(),
  ]);
  await popup.locator('input[name="login"]').fill(login);
  await popup.locator('input[name="password"]').fill('any password');
  await popup.getByRole('button', { name: 'Sign-in' }).click();
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Continue' }).click();
  await closed;
}

/** The refusal shown: its words and its code. */
async function refusal(): Promise<{ words: string; code: string }> {
  const words = page.getByTestId('invite-problem');
  await words.waitFor({ timeout: 20_000 });
  return {
    words: (await words.textContent()) ?? '',
    code: (await page.getByRole('alert').locator('.problem-code').textContent()) ?? '',
  };
}

describe('accepting an invite', () => {
  it('signs in with SSO as the invited email and joins; the token leaves the address', async () => {
    const login = person();
    const email = `${login}@example.com`;
    const { link, token } = await invite(email);
    await open(link);
    await page.getByRole('button', { name: 'Sign in with SSO and accept' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.title()).toBe('Accept an invite · Content Firewall');

    await acceptAs(login);
    const accepted = page.getByTestId('invite-accepted');
    await accepted.waitFor({ timeout: 20_000 });
    expect(await accepted.textContent()).toContain('You joined Invite Org as member.');
    expect(await storedState(page)).not.toContain(token);
    const users = await call(app, 'GET', '/v1/users', { key: org.admin });
    expect(users.body.data.map((u: { email: string }) => u.email)).toContain(email);

    await accepted.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('API key').waitFor();
  });

  it('says the invite was sent to another email when the session is not the invitee', async () => {
    const { link } = await invite(`${person()}@example.com`);
    await open(link);
    await acceptAs(person());
    const { words, code } = await refusal();
    expect(code).toBe('invites.email_mismatch');
    expect(words).toContain('sent to another email address');
  });

  it('says a revoked invite cannot be used, and an expired one has expired', async () => {
    const login = person();
    const revoked = await invite(`${login}@example.com`);
    expect((await call(app, 'POST', `/v1/invites/${revoked.id}:revoke`, { key: org.admin })).status).toBe(204);
    await open(revoked.link);
    await acceptAs(login);
    let shown = await refusal();
    expect(shown.code).toBe('invites.not_found');
    expect(shown.words).toContain('revoked, already accepted');
    await tab.close();

    const expired = await invite(`${login}@example.com`);
    await app.db.query("UPDATE invites SET expires_at = now() - interval '1 hour' WHERE org_id = $1 AND id = $2", [
      org.orgId,
      expired.id,
    ]);
    await open(expired.link);
    await acceptAs(login);
    shown = await refusal();
    expect(shown.code).toBe('invites.expired');
    expect(shown.words).toContain('has expired');
  });

  it('follows a link of the old shape (/invites/accept#token=…) to the accept page, the token kept', async () => {
    const { link } = await invite(`${person()}@example.com`);
    await open(link.replace('/dashboard/invites/accept', '/invites/accept'));
    await page.getByRole('button', { name: 'Sign in with SSO and accept' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/invites/accept');
  });

  it('says so when the address carries no token', async () => {
    await open(`${app.baseUrl}/dashboard/invites/accept`);
    await expect.poll(() => page.getByTestId('invite-note').textContent()).toContain('carries no invite token');
    expect(await page.getByRole('button', { name: 'Sign in with SSO and accept' }).count()).toBe(0);
  });
});

describe('without the dashboard SSO sign-in', () => {
  let plain: TestApp;
  let plainOrg: TestOrg;
  beforeAll(async () => {
    plain = await startTestApp({ env: { ...issuer.env(), DASHBOARD_OIDC_CLIENT_ID: '' } });
    plainOrg = await buildOrg(plain, 'Keys Only');
  });
  afterAll(async () => plain?.close());

  it('the accept page says why an invite cannot be accepted here', async () => {
    await open(`${plain.baseUrl}/dashboard/invites/accept#token=${'A'.repeat(43)}`, plain);
    await expect.poll(() => page.getByTestId('invite-note').textContent()).toContain('has no SSO sign-in');
    expect(await page.getByRole('button', { name: 'Sign in with SSO and accept' }).count()).toBe(0);
  });

  it('the Members page offers no invite form, and says why', async () => {
    tab = await openTab(browser, plain.baseUrl);
    page = tab.page;
    await tab.signIn(plainOrg.admin, 'members');
    await expect.poll(() => page.getByTestId('invites-unavailable').textContent()).toContain('no SSO sign-in');
    expect(await page.getByRole('button', { name: 'Send invite' }).count()).toBe(0);
  });
});
