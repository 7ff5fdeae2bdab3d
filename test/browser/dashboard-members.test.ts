/**
 * The dashboard's Members page in a real browser against a real service in SaaS mode that trusts a
 * real OIDC provider on loopback (test/support/oidc-issuer.ts): members come from SSO sessions (an
 * owner creates the organization, two people sign in), the dashboard signs in with an admin API key
 * of that organization, lists them, changes a role, shows the owner-only guard's refusal, removes a
 * member, and creates and revokes an invite whose link is shown once. An organization used only with
 * API keys shows the empty state. DASHBOARD_SCREENSHOTS=1 also writes docs/images/dashboard-members.png.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, isolatedDatabase, startTestApp, type TestApp } from '../support/harness.ts';
import { startIssuer, type Role, type TestIssuer } from '../support/oidc-issuer.ts';
import { launchChromium, requireBuiltDashboard, screenshot, storedState } from './chromium.ts';
import { openTab, type DashboardTab } from './session.ts';

let idp: TestIssuer;
let app: TestApp;
let browser: Browser;
let tab: DashboardTab;
let page: Page;

beforeAll(async () => {
  requireBuiltDashboard();
  browser = await launchChromium();
  idp = await startIssuer();
  // The dashboard offers invites only with its SSO sign-in (the invitee accepts with it): a client id is enough here.
  app = await startTestApp({
    env: { DATABASE_URL: await isolatedDatabase(), ...idp.env(), DASHBOARD_OIDC_CLIENT_ID: 'firewall-dashboard' },
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await idp?.close();
});
afterEach(async () => {
  await tab?.close();
});

const subject = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The organization here and at the issuer, and its owner's email. */
interface SsoOrg {
  orgId: string;
  externalOrgId: string;
  ownerEmail: string;
}

/** A person signs in with SSO, creates an organization, and signs in again (a token naming it). */
async function ssoOrganization(): Promise<SsoOrg> {
  const owner = subject('owner');
  const ownerEmail = `${owner}@example.com`;
  const orgless = await idp.mint(owner, { email: ownerEmail });
  const created = await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name: 'Acme SSO' } });
  expect(created.status, created.text).toBe(201);
  const externalOrgId = [...idp.orgs.values()].find((o) => o.members.has(owner))!.id;
  const me = await call(app, 'GET', '/v1/me', { key: await idp.mint(owner) });
  expect(me.body.role, me.text).toBe('owner');
  return { orgId: created.body.id as string, externalOrgId, ownerEmail };
}

/** A person the issuer puts in the organization; their first request (GET /v1/me) provisions them here. */
async function join(org: SsoOrg, role: Role): Promise<{ id: string; email: string }> {
  const person = subject(role);
  const email = `${person}@example.com`;
  idp.orgs.get(org.externalOrgId)!.members.set(person, { role, email });
  const me = await call(app, 'GET', '/v1/me', { key: await idp.mint(person) });
  expect(me.body.role, me.text).toBe(role);
  return { id: me.body.actor_id as string, email };
}

/** A member's row in the table, by email. */
const memberRow = (email: string) => page.locator('table.members-table tbody tr').filter({ hasText: email });

describe('the Members page', () => {
  it('shows the empty state for an organization used only with API keys', async () => {
    const org = await buildOrg(app, 'Keys Only');
    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(org.admin, 'members');
    await page.getByText('This organization has no members yet.').waitFor();
    expect(await page.getByText(/arrive by signing in with the organization's SSO/).count()).toBe(1);
    await page.getByText('No pending invites.').waitFor();
  });

  it('lists SSO members, changes a role, shows the owner guard, removes one, and invites then revokes', async () => {
    const org = await ssoOrganization();
    const member = await join(org, 'member');
    const admin = await join(org, 'admin');
    const { secret } = await buildApiKey(app, org.orgId, { name: 'dashboard', scopes: ['admin'] });

    tab = await openTab(browser, app.baseUrl);
    page = tab.page;
    await tab.signIn(secret, 'members');
    for (const email of [org.ownerEmail, member.email, admin.email]) await memberRow(email).waitFor();
    expect(await page.locator('table.members-table tbody tr').count()).toBe(3);

    // member → admin: saved through the API.
    const row = memberRow(member.email);
    await row.getByLabel(`Role of ${member.email}`).selectOption('admin');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => {
        const users = await call(app, 'GET', '/v1/users', { key: secret });
        return users.body.data.find((u: { id: string }) => u.id === member.id)?.role;
      })
      .toBe('admin');
    await expect.poll(() => row.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    // An API key is never an owner: demoting the owner is refused, and the refusal is shown on the row.
    const ownerRow = memberRow(org.ownerEmail);
    await ownerRow.getByLabel(`Role of ${org.ownerEmail}`).selectOption('member');
    await ownerRow.getByRole('button', { name: 'Save' }).click();
    const problem = ownerRow.getByRole('alert');
    await problem.waitFor();
    expect(await problem.locator('.problem-code').textContent()).toBe('users.owner_required');

    // Removing the admin.
    const adminRow = memberRow(admin.email);
    await adminRow.getByRole('button', { name: 'Remove' }).click();
    await adminRow.getByRole('button', { name: 'Confirm remove' }).click();
    await expect.poll(() => adminRow.count()).toBe(0);

    // An invite: its accept link shown once, then revoked.
    const invitee = `${subject('invitee')}@example.com`;
    await page.getByLabel('Email').fill(invitee);
    await page.getByLabel('Invite role').selectOption('admin');
    await page.getByRole('button', { name: 'Send invite' }).click();
    const link = await page.getByTestId('new-secret').textContent();
    expect(link).toMatch(/\/dashboard\/invites\/accept#token=[\w-]{43}$/);
    const invite = page.locator('table.invites-table tbody tr').filter({ hasText: invitee });
    await invite.waitFor();
    expect(await invite.textContent()).toContain('admin');
    await screenshot(page, 'members');
    expect(await storedState(page)).not.toContain(link!);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(link!);

    await invite.getByRole('button', { name: 'Revoke' }).click();
    await invite.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.getByText('No pending invites.').waitFor();
    const pending = await call(app, 'GET', '/v1/invites', { key: secret });
    expect(pending.body.data).toEqual([]);
  });
});
