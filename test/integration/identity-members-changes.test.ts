/**
 * Member role changes (PATCH /v1/users/{id}) and removals (DELETE /v1/users/{id}): the identity
 * provider first, owner-only rules, the last owner, immediate effect on the member's session,
 * management audit rows. The list and refusals shared by every route: identity-members.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Reply } from '../support/harness.ts';
import type { Role } from '../support/oidc-issuer.ts';
import { app, idp, me, newSubject, signUp, useIdentityApp, type SignedUp } from './identity-fixture.ts';

useIdentityApp();

interface Member {
  subject: string;
  token: string;
  id: string;
}

/** Puts a person in the owner's organization at the issuer and provisions their user row (one request). */
async function addMember(owner: SignedUp, role: Role): Promise<Member> {
  const subject = newSubject(role);
  idp.orgs.get(owner.externalOrgId)!.members.set(subject, { role, email: `${subject}@example.com` });
  const token = await idp.mint(subject);
  const who = await me(token);
  expect(who.body.role, who.text).toBe(role);
  return { subject, token, id: who.body.actor_id as string };
}

/** The signed-up owner as a Member. */
async function asMember(owner: SignedUp): Promise<Member> {
  return { subject: owner.subject, token: owner.token, id: (await me(owner.token)).body.actor_id as string };
}

const setRole = (key: string, id: string, role: Role): Promise<Reply> =>
  call(app, 'PATCH', `/v1/users/${id}`, { key, json: { role } });
const remove = (key: string, id: string): Promise<Reply> => call(app, 'DELETE', `/v1/users/${id}`, { key });
const idpRole = (owner: SignedUp, m: Member) => idp.orgs.get(owner.externalOrgId)!.members.get(m.subject)?.role;
const localRole = async (id: string) =>
  (await app.db.query('SELECT role, removed_at FROM users WHERE id = $1', [id])).rows[0] as {
    role: Role;
    removed_at: Date | null;
  };
const auditFor = async (token: string, id: string) => {
  const r = await call(app, 'GET', `/v1/audit-events?resource_type=user&resource_id=${id}`, { key: token });
  expect(r.status, r.text).toBe(200);
  return r.body.data as { actor_id: string; resource_type: string; resource_id: string; change_summary: string }[];
};
const newKey = async (token: string, scopes: string[] = ['admin']) => {
  const r = await call(app, 'POST', '/v1/api-keys', { key: token, json: { name: 'k', scopes } });
  expect(r.status, r.text).toBe(201);
  return r.body.secret as string;
};

describe('PATCH /v1/users/{user_id}', () => {
  it('changes the role in the provider and here, audits it, and the demoted session loses its scopes at once', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    // the admin's principal is cached by now
    expect(
      (await call(app, 'POST', '/v1/api-keys', { key: admin.token, json: { name: 'a', scopes: ['scans:read'] } }))
        .status,
    ).toBe(201);

    const r = await setRole(owner.token, admin.id, 'member');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: admin.id,
      email: `${admin.subject}@example.com`,
      role: 'member',
      created_at: expect.any(String),
    });
    expect(idpRole(owner, admin)).toBe('member');
    expect((await localRole(admin.id)).role).toBe('member');
    // the token still says admin: the local row decides, without waiting for any cache
    const refused = await call(app, 'POST', '/v1/api-keys', {
      key: admin.token,
      json: { name: 'b', scopes: ['scans:read'] },
    });
    expectProblem(refused, 403, 'auth.insufficient_scope');
    expect((await me(admin.token)).body.role).toBe('member');

    const ownerId = (await asMember(owner)).id;
    expect(await auditFor(owner.token, admin.id)).toEqual([
      expect.objectContaining({
        actor_id: ownerId,
        resource_type: 'user',
        resource_id: admin.id,
        change_summary: 'role changed from admin to member',
      }),
    ]);

    // back up to admin: effect at once as well
    expect((await setRole(owner.token, admin.id, 'admin')).status).toBe(200);
    expect(
      (await call(app, 'POST', '/v1/api-keys', { key: admin.token, json: { name: 'c', scopes: ['scans:read'] } }))
        .status,
    ).toBe(201);
    expect(idpRole(owner, admin)).toBe('admin');
  });

  it('setting the same role is a no-op 200: no provider call, no audit row', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const calls = idp.calls.length;
    const r = await setRole(owner.token, member.id, 'member');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: member.id, role: 'member' });
    expect(idp.calls.length).toBe(calls);
    expect(await auditFor(owner.token, member.id)).toEqual([]);
  });

  it('only an owner grants the owner role or touches an owner: an admin user or admin key gets 403 users.owner_required', async () => {
    const owner = await signUp();
    const ownerM = await asMember(owner);
    const admin = await addMember(owner, 'admin');
    const member = await addMember(owner, 'member');
    const adminKey = await newKey(owner.token);
    const calls = idp.calls.length;
    for (const key of [admin.token, adminKey]) {
      expectProblem(await setRole(key, member.id, 'owner'), 403, 'users.owner_required');
      expectProblem(await setRole(key, ownerM.id, 'admin'), 403, 'users.owner_required');
      expectProblem(await remove(key, ownerM.id), 403, 'users.owner_required');
    }
    expect(idp.calls.length).toBe(calls);
    expect((await localRole(member.id)).role).toBe('member');
    expect((await localRole(ownerM.id)).role).toBe('owner');
    // what admins may do: change and remove non-owners
    expect((await setRole(admin.token, member.id, 'admin')).status).toBe(200);
    expect((await setRole(adminKey, member.id, 'member')).status).toBe(200);
    expect((await remove(adminKey, member.id)).status).toBe(204);
    // the owner may grant owner
    const promoted = await setRole(owner.token, admin.id, 'owner');
    expect(promoted.status, promoted.text).toBe(200);
    expect(idpRole(owner, admin)).toBe('owner');
    expect((await me(admin.token)).body.role).toBe('owner');
  });

  it('the last owner cannot be demoted or removed: 409 users.last_owner; with two owners one can demote the other', async () => {
    const owner = await signUp();
    const first = await asMember(owner);
    expectProblem(await setRole(owner.token, first.id, 'admin'), 409, 'users.last_owner');
    expectProblem(await remove(owner.token, first.id), 409, 'users.last_owner');
    expect(idpRole(owner, first)).toBe('owner');

    const second = await addMember(owner, 'owner');
    const r = await setRole(second.token, first.id, 'admin');
    expect(r.status, r.text).toBe(200);
    expect(idpRole(owner, first)).toBe('admin');
    // the demoted one is an admin at once: no longer allowed to touch the owner
    expectProblem(await setRole(first.token, second.id, 'member'), 403, 'users.owner_required');
    expectProblem(await setRole(second.token, second.id, 'member'), 409, 'users.last_owner');
    expectProblem(await remove(second.token, second.id), 409, 'users.last_owner');
  });

  it('two owners demoting each other at once leave one owner, here and in the provider', async () => {
    for (let round = 0; round < 3; round += 1) {
      const owner = await signUp();
      const a = await asMember(owner);
      const b = await addMember(owner, 'owner');
      const replies = await Promise.all([setRole(a.token, b.id, 'admin'), setRole(b.token, a.id, 'admin')]);
      const statuses = replies.map((x) => x.status).sort();
      expect(statuses, replies.map((x) => x.text).join(' | ')).toEqual([200, 409]);
      expectProblem(
        replies.find((x) => x.status === 409)!,
        409,
        'users.last_owner',
      );
      const { rows } = await app.db.query(`SELECT id FROM users WHERE org_id = $1 AND role = 'owner'`, [owner.orgId]);
      expect(rows).toHaveLength(1);
      // the refused change was undone in the provider: both sides agree
      for (const m of [a, b]) expect(idpRole(owner, m)).toBe((await localRole(m.id)).role);
    }
  });

  it('a provider failure is 502 identity_provider.upstream_failure and changes nothing here', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    idp.managementDown = true;
    try {
      const r = await setRole(owner.token, member.id, 'admin');
      expectProblem(r, 502, 'identity_provider.upstream_failure');
      expect(r.headers.get('retry-after')).toBe('5');
      expectProblem(await remove(owner.token, member.id), 502, 'identity_provider.upstream_failure');
    } finally {
      idp.managementDown = false;
    }
    expect(await localRole(member.id)).toEqual({ role: 'member', removed_at: null });
    expect(idpRole(owner, member)).toBe('member');
    expect(await auditFor(owner.token, member.id)).toEqual([]);
    expect((await me(member.token)).body.role).toBe('member');
  });
});

describe('DELETE /v1/users/{user_id}', () => {
  it('removes the member in the provider and here: 204, listed no more, their token 401, audited', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'admin');
    expect((await call(app, 'GET', '/v1/scans', { key: member.token })).status).toBe(200);

    const r = await remove(owner.token, member.id);
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    expect(idp.orgs.get(owner.externalOrgId)!.members.has(member.subject)).toBe(false);
    expect((await localRole(member.id)).removed_at).toBeInstanceOf(Date);
    const listed = await call(app, 'GET', '/v1/users', { key: owner.token });
    expect(listed.body.data.map((u: { id: string }) => u.id)).not.toContain(member.id);
    expectProblem(await call(app, 'GET', '/v1/scans', { key: member.token }), 401, 'auth.unauthenticated');

    // removed: as unknown from now on
    expectProblem(await remove(owner.token, member.id), 404, 'users.not_found');
    expectProblem(await setRole(owner.token, member.id, 'member'), 404, 'users.not_found');

    const ownerId = (await asMember(owner)).id;
    expect(await auditFor(owner.token, member.id)).toEqual([
      expect.objectContaining({ actor_id: ownerId, resource_id: member.id, change_summary: 'member removed' }),
    ]);
  });

  it('a member may remove themselves (admin scope needed: an admin), an owner too when another owner remains', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    expect((await remove(admin.token, admin.id)).status).toBe(204);
    expectProblem(await call(app, 'GET', '/v1/users', { key: admin.token }), 401, 'auth.unauthenticated');

    const second = await addMember(owner, 'owner');
    const r = await remove(second.token, second.id);
    expect(r.status, r.text).toBe(204);
    expect(idp.orgs.get(owner.externalOrgId)!.members.has(second.subject)).toBe(false);
    const left = await call(app, 'GET', '/v1/users', { key: owner.token });
    expect(left.body.data).toEqual([expect.objectContaining({ role: 'owner', id: (await asMember(owner)).id })]);
  });

  it('an owner removes another owner; the audit trail lists every member change with its actor', async () => {
    const owner = await signUp();
    const ownerId = (await asMember(owner)).id;
    const other = await addMember(owner, 'owner');
    expect((await setRole(owner.token, other.id, 'admin')).status).toBe(200);
    expect((await setRole(owner.token, other.id, 'owner')).status).toBe(200);
    expect((await remove(owner.token, other.id)).status).toBe(204);
    const all = await call(app, 'GET', '/v1/audit-events?resource_type=user', { key: owner.token });
    expect(all.status, all.text).toBe(200);
    const summaries = (all.body.data as { change_summary: string; actor_id: string; resource_id: string }[])
      .filter((e) => e.resource_id === other.id)
      .map((e) => [e.actor_id, e.change_summary]);
    expect(summaries.sort()).toEqual(
      [
        [ownerId, 'member removed'],
        [ownerId, 'role changed from admin to owner'],
        [ownerId, 'role changed from owner to admin'],
      ].sort(),
    );
  });
});
