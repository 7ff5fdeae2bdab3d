/**
 * The dashboard's SSO sign-in in a real browser against a real OIDC provider on loopback
 * (test/support/oidc-login-issuer.ts: its login form and consent screen) and a real service in SaaS
 * mode: "Sign in with SSO" opens the issuer in a popup, the authorization code comes back to
 * `/dashboard/oidc-callback`, is exchanged with PKCE, and the access token signs in — kept in memory
 * only. Also what the service says of SSO (`/dashboard/config.json`, the page's CSP) with and without
 * it, and the failures a person can meet: the popup closed or blocked, the issuer refusing, the API
 * refusing the token. DASHBOARD_SCREENSHOTS=1 also writes docs/images/dashboard-sign-in-sso.png.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../services/sso-tokens.ts';
import { call, startTestApp, type TestApp } from '../support/harness.ts';
import { SSO_AUDIENCE } from '../support/oidc-issuer.ts';
import { DASHBOARD_CLIENT_ID, startLoginIssuer, type LoginIssuer } from '../support/oidc-login-issuer.ts';
import { directive } from '../support/pages.ts';
import { launchChromium, requireBuiltDashboard, screenshot, storedState } from './chromium.ts';
import { openTab, type DashboardTab } from './session.ts';

let issuer: LoginIssuer;
let app: TestApp;
let browser: Browser;
let tab: DashboardTab;
let page: Page;
/** Every URL the tab and its popups asked for since open(). */
let requested: string[] = [];
const ORG = { id: `idp-org-${randomUUID()}`, display_name: 'Acme Robotics' };

beforeAll(async () => {
  requireBuiltDashboard();
  browser = await launchChromium();
  issuer = await startLoginIssuer();
  app = await startTestApp({ env: issuer.env() });
  issuer.register(app.baseUrl);
  issuer.orgs.set(ORG.id, { ...ORG, members: new Map([['jane', { role: 'member', email: 'jane@acme.test' }]]) });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await issuer?.close();
});

afterEach(async () => {
  await tab?.close();
});

/**
 * A new tab on the sign-in screen. Nothing leaves the machine: the issuer's development pages link a
 * web font, so every request off loopback is refused (for the popup too: it shares the context).
 */
async function open(): Promise<void> {
  tab = await openTab(browser, app.baseUrl);
  page = tab.page;
  requested = [];
  page.context().on('request', (request) => requested.push(request.url()));
  await page.context().route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  await page.goto(`${app.baseUrl}/dashboard`);
}

/** Clicks "Sign in with SSO" and answers the popup it opens. */
async function startSso(): Promise<Page> {
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('button', { name: 'Sign in with SSO' }).click(),
  ]);
  await popup.locator('input[name="login"]').waitFor();
  return popup;
}

/** Signs in at the issuer as `login` and consents; the popup closes itself. */
async function loginAndConsent(popup: Page, login: string): Promise<void> {
  await popup.locator('input[name="login"]').fill(login);
  await popup.locator('input[name="password"]').fill('any password');
  await popup.getByRole('button', { name: 'Sign-in' }).click();
  const closed = popup.waitForEvent('close');
  await popup.getByRole('button', { name: 'Continue' }).click();
  await closed;
}

describe('SSO sign-in', () => {
  it('signs in through the issuer in a popup, shows the organization and the role scopes, stores no token', async () => {
    await open();
    await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
    expect(await page.getByLabel('API key').isVisible()).toBe(true);
    await screenshot(page, 'sign-in-sso');

    const popup = await startSso();
    const authorize = new URL(popup.url());
    expect(authorize.origin).toBe(issuer.url);
    const tokenAnswer = page.waitForResponse((r) => r.url() === `${issuer.url}/token`);
    await loginAndConsent(popup, 'jane');
    const { access_token: token } = (await (await tokenAnswer).json()) as { access_token: string };
    expect(token.split('.')).toHaveLength(3);

    await expect.poll(() => page.getByTestId('organization').textContent(), { timeout: 20_000 }).toBe(ORG.display_name);
    expect(await page.getByTestId('scopes').textContent()).toBe(ROLE_SCOPES.member.join(' '));
    const stored = await storedState(page);
    expect(stored).not.toContain(token);
    expect(stored).not.toMatch(/eyJ|code|verifier/i);
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
  });

  it('asks for the code with PKCE, the state, a nonce and the audience as the resource', async () => {
    await open();
    const popup = await startSso();
    const authorize = requested.map((u) => new URL(u)).find((u) => u.searchParams.has('code_challenge'));
    const params = authorize!.searchParams;
    expect(authorize!.origin).toBe(issuer.url);
    expect(params.get('client_id')).toBe(DASHBOARD_CLIENT_ID);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('scope')).toBe('openid profile email');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('resource')).toBe(SSO_AUDIENCE);
    expect(params.get('audience')).toBe(SSO_AUDIENCE);
    expect(params.get('redirect_uri')).toBe(`${app.baseUrl}/dashboard/oidc-callback`);
    expect(params.get('state')).toMatch(/^[\w-]{22}$/);
    expect(params.get('nonce')).toMatch(/^[\w-]{22}$/);
    await popup.close();
  });

  it('says so when the popup is closed before signing in finished', async () => {
    await open();
    const popup = await startSso();
    await popup.close();
    const error = page.getByTestId('sso-error');
    await expect.poll(() => error.textContent()).toContain('closed before signing in finished');
  });

  it("shows the issuer's error when the person cancels at the issuer", async () => {
    await open();
    const popup = await startSso();
    const closed = popup.waitForEvent('close');
    await popup.getByRole('link', { name: '[ Cancel ]' }).click();
    await closed;
    const error = page.getByTestId('sso-error');
    await expect.poll(() => error.textContent()).toContain('access_denied');
  });

  it('says so when the browser blocks the popup', async () => {
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    // What a popup blocker does: window.open answers null.
    await page.addInitScript(() => {
      window.open = () => null;
    });
    await page.goto(`${app.baseUrl}/dashboard`);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await expect.poll(() => page.getByTestId('sso-error').textContent()).toContain('blocked');
  });

  it("shows the API's problem when the service refuses the issuer's token", async () => {
    await open();
    // A subject longer than the 255 characters the service takes: the token is valid, the service says 401.
    await loginAndConsent(await startSso(), 'x'.repeat(300));
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.locator('.problem-code').textContent()).toBe('auth.unauthenticated');
    expect(await problem.locator('.problem-request-id').textContent()).toMatch(/^[\w-]{8,}$/);
  });

  it('the callback opened without its opener hands nothing on and says the window can be closed', async () => {
    await open();
    await page.goto(`${app.baseUrl}/dashboard/oidc-callback?code=stray&state=stray`);
    await expect.poll(() => page.getByRole('main').textContent()).toContain('this window can be closed');
    expect(await page.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0);
  });
});

describe('what the service says of SSO', () => {
  it('GET /dashboard/config.json: the issuer, client, audience and scope; the CSP lets the page reach the issuer', async () => {
    const res = await call(app, 'GET', '/dashboard/config.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.body).toEqual({
      sso: {
        issuer: issuer.url,
        client_id: DASHBOARD_CLIENT_ID,
        audience: SSO_AUDIENCE,
        scope: 'openid profile email',
      },
    });
    const policy = (await call(app, 'GET', '/dashboard')).headers.get('content-security-policy') ?? '';
    expect(directive(policy, 'connect-src')).toEqual(["'self'", issuer.url]);
    expect(directive(policy, 'script-src')).toEqual(["'self'"]);
  });
});

describe('without a dashboard client', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp({ env: { ...issuer.env(), DASHBOARD_OIDC_CLIENT_ID: '' } });
  });
  afterAll(async () => plain?.close());

  it('answers {"sso": null}, lets the page reach its own origin only, and offers no SSO button', async () => {
    const res = await call(plain, 'GET', '/dashboard/config.json');
    expect(res.body).toEqual({ sso: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const policy = (await call(plain, 'GET', '/dashboard')).headers.get('content-security-policy') ?? '';
    expect(directive(policy, 'connect-src')).toEqual(["'self'"]);
    tab = await openTab(browser, plain.baseUrl);
    page = tab.page;
    const config = page.waitForResponse((r) => r.url().endsWith('/dashboard/config.json'));
    await page.goto(`${plain.baseUrl}/dashboard`);
    await config;
    await page.getByLabel('API key').waitFor();
    expect(await page.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0);
  });
});
