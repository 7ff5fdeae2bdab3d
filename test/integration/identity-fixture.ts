/**
 * What the identity-*.test.ts files share: a real OIDC provider on loopback (test/support/oidc-issuer.ts:
 * session tokens and the management API) and a SaaS-mode app that trusts it, started before a file's
 * tests. `signUp` walks a new person through organization create and re-authentication, as the
 * dashboard does. The bindings are live: they are set by the hooks `useIdentityApp` registers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  call,
  isolatedDatabase,
  startTestApp,
  type Reply,
  type TestApp,
  type TestAppOptions,
} from '../support/harness.ts';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.ts';

export let idp: TestIssuer;
export let app: TestApp;

/** Starts the issuer and the app (on a database of its own) before this file's tests. */
export function useIdentityApp(options: { env?: Record<string, string> } & Omit<TestAppOptions, 'env'> = {}): void {
  beforeAll(async () => {
    idp = await startIssuer();
    app = await startTestApp({
      ...options,
      env: { DATABASE_URL: await isolatedDatabase(), ...idp.env(), ...options.env },
    });
  });
  afterAll(async () => {
    await app?.close();
    await idp?.close();
  });
}

/** A fresh subject (a person the issuer knows nothing about yet). */
export function newSubject(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export interface SignedUp {
  subject: string;
  /** The local organization id. */
  orgId: string;
  /** The identity provider's organization id (the token's org_id). */
  externalOrgId: string;
  /** A session token naming the organization (minted after the create: a re-authentication). */
  token: string;
}

/** A new person creates an organization and signs in again to get a token naming it. */
export async function signUp(
  name = `Org ${randomBytes(3).toString('hex')}`,
  subject = newSubject(),
): Promise<SignedUp> {
  const orgless = await idp.mint(subject);
  const created = await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name: name } });
  expect(created.status, created.text).toBe(201);
  const token = await idp.mint(subject);
  const me = await call(app, 'GET', '/v1/me', { key: token });
  expect(me.body.org_id, me.text).toBe(created.body.id);
  const externalOrgId = [...idp.orgs.values()].find((o) => o.members.has(subject))!.id;
  return { subject, orgId: created.body.id as string, externalOrgId, token };
}

/** GET /v1/me with `token`. */
export function me(token: string): Promise<Reply> {
  return call(app, 'GET', '/v1/me', { key: token });
}
