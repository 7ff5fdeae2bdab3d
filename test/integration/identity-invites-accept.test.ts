/**
 * Invite accept with SSO sessions from a real OIDC provider: the happy path (an organization-less
 * person becomes a member, in the provider and here, and after re-authenticating calls scoped
 * routes), every refusal in the spec's order, and the provider failing (nothing written, retry works).
 */
import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Reply } from '../support/harness.ts';
import { app, idp, me, newSubject, signUp, useIdentityApp, type SignedUp } from './identity-fixture.ts';

useIdentityApp();

const invite = async (key: string, email: string, role = 'member'): Promise<{ id: string; token: string }> => {
  const r = await call(app, 'POST', '/v1/invites', { key, json: { email, role } });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.invite.id, token: /#token=([A-Za-z0-9_-]{43})$/.exec(r.body.accept_url as string)![1]! };
};
const accept = (key: string | undefined, token: string): Promise<Reply> =>
  call(app, 'POST', `/v1/invites/${token}:accept`, { key });
const inviteRow = async (id: string) => (await app.db.query('SELECT * FROM invites WHERE id = $1', [id])).rows[0];
const expire = (id: string) =>
  app.db.query(`UPDATE invites SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
const memberRows = async (orgId: string, subject: string) =>
  (await app.db.query('SELECT * FROM users WHERE org_id = $1 AND external_subject = $2', [orgId, subject])).rows;

/** A new person (no organization yet) and their session token. */
async function newPerson(email?: string): Promise<{ subject: string; email: string; session: string }> {
  const subject = newSubject('invitee');
  const address = email ?? `${subject}@example.com`;
  return { subject, email: address, session: await idp.mint(subject, { email: address }) };
}

describe('invite accept', () => {
  it('makes an organization-less person a member; after re-authenticating, scoped routes work and /v1/me shows the role', async () => {
    const owner = await signUp();
    const person = await newPerson();
    const { id, token } = await invite(owner.token, person.email.toUpperCase(), 'admin');
    // the organization-less answer is cached by the authenticator before the accept
    expect((await me(person.session)).body.org_id).toBeNull();
    expectProblem(await call(app, 'GET', '/v1/api-keys', { key: person.session }), 401, 'auth.unauthenticated');

    const r = await accept(person.session, token);
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['organization', 'role', 'user']);
    expect(r.body.role).toBe('admin');
    expect(Object.keys(r.body.user).sort()).toEqual(['created_at', 'email', 'id', 'role']);
    expect(r.body.user).toMatchObject({ email: person.email, role: 'admin' });
    expect(r.body.user.id).toMatch(/^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.body.organization).toMatchObject({ id: owner.orgId, slug: expect.any(String) });
    expect(Object.keys(r.body.organization).sort()).toEqual(['created_at', 'display_name', 'id', 'slug']);

    expect(idp.orgs.get(owner.externalOrgId)!.members.get(person.subject)).toEqual({
      role: 'admin',
      email: person.email,
    });
    expect(idp.calls).toContain(`PUT /organizations/${owner.externalOrgId}/members/${person.subject}`);
    const row = await inviteRow(id);
    expect(row.accepted_by).toBe(r.body.user.id);
    expect(row.accepted_at).not.toBeNull();

    const token2 = await idp.mint(person.subject, { orgId: owner.externalOrgId });
    const keys = await call(app, 'GET', '/v1/api-keys', { key: token2 });
    expect(keys.status, keys.text).toBe(200);
    expect((await me(token2)).body).toMatchObject({
      type: 'user',
      org_id: owner.orgId,
      actor_id: r.body.user.id,
      role: 'admin',
      email: person.email,
    });
    // the invite works once
    expectProblem(await accept(token2, token), 404, 'invites.not_found');
    expect(await memberRows(owner.orgId, person.subject)).toHaveLength(1);
  });

  it('a member of another organization joins this one too; a plain re-mint names the first organization', async () => {
    const other = await signUp();
    const owner = await signUp();
    const { token } = await invite(owner.token, `${other.subject}@example.com`);
    const r = await accept(other.token, token);
    expect(r.status, r.text).toBe(200);
    expect(r.body.organization.id).toBe(owner.orgId);
    expect((await me(await idp.mint(other.subject))).body.org_id).toBe(other.orgId);
    expect((await me(await idp.mint(other.subject, { orgId: owner.externalOrgId }))).body).toMatchObject({
      org_id: owner.orgId,
      role: 'member',
    });
  });

  it('a member joins with the member role: no admin scope, so invites are 403 auth.insufficient_scope', async () => {
    const owner = await signUp();
    const person = await newPerson();
    const { token } = await invite(owner.token, person.email, 'member');
    expect((await accept(person.session, token)).status).toBe(200);
    const scoped = await idp.mint(person.subject);
    expect((await me(scoped)).body).toMatchObject({ org_id: owner.orgId, role: 'member' });
    expect((await call(app, 'GET', '/v1/scans', { key: scoped })).status).toBe(200);
    expectProblem(
      await call(app, 'POST', '/v1/invites', { key: scoped, json: { email: 'x@example.com', role: 'member' } }),
      403,
      'auth.insufficient_scope',
    );
    expectProblem(await call(app, 'GET', '/v1/invites', { key: scoped }), 403, 'auth.insufficient_scope');
  });

  it('a removed member is restored by a new invite (same user id), and their cached refusal is dropped at once', async () => {
    const owner = await signUp();
    const person = await newPerson();
    const first = await accept(person.session, (await invite(owner.token, person.email)).token);
    expect(first.status, first.text).toBe(200);
    await app.db.query('UPDATE users SET removed_at = now() WHERE id = $1', [first.body.user.id]);
    const scoped = await idp.mint(person.subject, { orgId: owner.externalOrgId });
    // the authenticator caches this "removed" answer (1 s here)
    expectProblem(await call(app, 'GET', '/v1/api-keys', { key: scoped }), 401, 'auth.unauthenticated');
    const second = await invite(owner.token, person.email, 'admin');
    expectProblem(await call(app, 'GET', '/v1/api-keys', { key: scoped }), 401, 'auth.unauthenticated');
    const again = await accept(person.session, second.token);
    expect(again.status, again.text).toBe(200);
    expect(again.body.user).toMatchObject({ id: first.body.user.id, role: 'admin' });
    expect(await memberRows(owner.orgId, person.subject)).toMatchObject([{ removed_at: null, role: 'admin' }]);
    expect((await me(scoped)).body).toMatchObject({ org_id: owner.orgId, actor_id: first.body.user.id, role: 'admin' });
  });
});

describe('invite accept refusals', () => {
  let owner: SignedUp;
  const ownerOnce = async () => (owner ??= await signUp());

  it('404 invites.not_found: a token of another shape, an unknown one, a revoked one, an accepted one', async () => {
    const o = await ownerOnce();
    const person = await newPerson();
    for (const bad of ['abc', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}+`, `${'A'.repeat(42)}.`])
      expectProblem(await accept(person.session, encodeURIComponent(bad)), 404, 'invites.not_found');
    expectProblem(await accept(person.session, 'A'.repeat(43)), 404, 'invites.not_found');

    const revoked = await invite(o.token, person.email);
    expect((await call(app, 'POST', `/v1/invites/${revoked.id}:revoke`, { key: o.token })).status).toBe(204);
    expectProblem(await accept(person.session, revoked.token), 404, 'invites.not_found');

    const taken = await invite(o.token, person.email);
    expect((await accept(person.session, taken.token)).status).toBe(200);
    expectProblem(await accept(person.session, taken.token), 404, 'invites.not_found');
    // revoked and expired: still 404 (the first check)
    await expire(revoked.id);
    expectProblem(await accept(person.session, revoked.token), 404, 'invites.not_found');
  });

  it('410 invites.expired, before any check of the caller', async () => {
    const o = await ownerOnce();
    const person = await newPerson();
    const { id, token } = await invite(o.token, person.email);
    await expire(id);
    expectProblem(await accept(person.session, token), 410, 'invites.expired');
    const stranger = await newPerson();
    expectProblem(await accept(stranger.session, token), 410, 'invites.expired');
    expectProblem(await accept(o.token, token), 410, 'invites.expired');
    expect((await inviteRow(id)).accepted_at).toBeNull();
  });

  it('403 invites.principal_email_unavailable: an API key, a session without email, an unverified email', async () => {
    const o = await ownerOnce();
    const person = await newPerson();
    const { id, token } = await invite(o.token, person.email);
    const key = await call(app, 'POST', '/v1/api-keys', { key: o.token, json: { name: 'k', scopes: ['admin'] } });
    expect(key.status, key.text).toBe(201);
    expectProblem(await accept(key.body.secret, token), 403, 'invites.principal_email_unavailable');
    const noEmail = await idp.mint(person.subject, { email: null });
    expectProblem(await accept(noEmail, token), 403, 'invites.principal_email_unavailable');
    const unverified = await idp.mint(person.subject, { email: person.email, set: { email_verified: false } });
    expectProblem(await accept(unverified, token), 403, 'invites.principal_email_unavailable');
    expectProblem(await accept(undefined, token), 401, 'auth.unauthenticated');
    expect((await inviteRow(id)).accepted_at).toBeNull();
    // still pending: its person accepts it
    expect((await accept(person.session, token)).status).toBe(200);
  });

  it('403 invites.email_mismatch for another email', async () => {
    const o = await ownerOnce();
    const { id, token } = await invite(o.token, 'someone.else@example.com');
    const person = await newPerson();
    expectProblem(await accept(person.session, token), 403, 'invites.email_mismatch');
    expect((await inviteRow(id)).accepted_at).toBeNull();
    expect(await memberRows(o.orgId, person.subject)).toEqual([]);
  });

  it('409 invites.already_member for an active member of the organization', async () => {
    const o = await ownerOnce();
    const { id, token } = await invite(o.token, `${o.subject}@example.com`, 'admin');
    expectProblem(await accept(o.token, token), 409, 'invites.already_member');
    const orgless = await idp.mint(o.subject, { orgId: null });
    expectProblem(await accept(orgless, token), 409, 'invites.already_member');
    expect((await inviteRow(id)).accepted_at).toBeNull();
    expect((await memberRows(o.orgId, o.subject))[0].role).toBe('owner');
  });

  it('502 invites.upstream_failure when the provider fails: nothing written here; a retry after recovery succeeds', async () => {
    const o = await ownerOnce();
    const person = await newPerson();
    const { id, token } = await invite(o.token, person.email);
    const audits = async () =>
      (await app.db.query(`SELECT count(*)::int AS n FROM audit_events WHERE resource_id = $1`, [id])).rows[0]
        .n as number;
    const auditsBefore = await audits();
    idp.managementDown = true;
    try {
      expectProblem(await accept(person.session, token), 502, 'invites.upstream_failure');
    } finally {
      idp.managementDown = false;
    }
    expect(await memberRows(o.orgId, person.subject)).toEqual([]);
    expect((await inviteRow(id)).accepted_at).toBeNull();
    expect(await audits()).toBe(auditsBefore);
    expect(idp.orgs.get(o.externalOrgId)!.members.has(person.subject)).toBe(false);

    const retry = await accept(person.session, token);
    expect(retry.status, retry.text).toBe(200);
    expect(await memberRows(o.orgId, person.subject)).toHaveLength(1);
    expect(idp.orgs.get(o.externalOrgId)!.members.get(person.subject)?.role).toBe('member');
  });
});
