/**
 * Organization create and delete through SSO sessions from a real OIDC provider, and the
 * provisioning of local rows on the first authenticated request.
 */
import { describe, expect, it } from 'vitest';
import { call, expectProblem } from '../support/harness.ts';
import { app, idp, me, newSubject, signUp, useIdentityApp } from './identity-fixture.ts';

useIdentityApp();

describe('organization create (SaaS)', () => {
  it('creates the organization in the provider and here; the re-authenticated owner can call scoped routes at once', async () => {
    const subject = newSubject();
    const orgless = await idp.mint(subject);
    const before = await me(orgless);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ type: 'user', org_id: null, scopes: [], deployment_mode: 'saas' });
    expectProblem(await call(app, 'GET', '/v1/scans', { key: orgless }), 401, 'auth.unauthenticated');

    const created = await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name: 'Acme Labs' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ display_name: 'Acme Labs', slug: expect.any(String) });
    expect(created.body.id).toMatch(/^org_[0-9A-Z]{26}$/);
    const idpOrg = [...idp.orgs.values()].find((o) => o.members.has(subject))!;
    expect(idpOrg.members.get(subject)?.role).toBe('owner');

    const token = await idp.mint(subject);
    // a scoped route first, before GET /v1/me
    const keys = await call(app, 'GET', '/v1/api-keys', { key: token });
    expect(keys.status, keys.text).toBe(200);
    const who = await me(token);
    expect(who.body).toMatchObject({
      type: 'user',
      org_id: created.body.id,
      role: 'owner',
      org_display_name: 'Acme Labs',
    });
    expect(who.body.actor_id).toMatch(/^usr_/);
  });

  it('refuses API keys, sessions already in an organization, and bad names', async () => {
    const owner = await signUp();
    expectProblem(
      await call(app, 'POST', '/v1/organizations', { key: owner.token, json: { display_name: 'Second' } }),
      409,
      'onboarding.already_in_organization',
    );
    const key = await call(app, 'POST', '/v1/api-keys', { key: owner.token, json: { name: 'k', scopes: ['admin'] } });
    expectProblem(
      await call(app, 'POST', '/v1/organizations', { key: key.body.secret, json: { display_name: 'By key' } }),
      403,
      'onboarding.session_required',
    );
    const orgless = await idp.mint(newSubject());
    for (const display_name of ['', ' ', 'x'.repeat(161)])
      expectProblem(
        await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name } }),
        400,
        'request.validation_failed',
      );
    expect(
      (await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name: 'x'.repeat(160) } })).status,
    ).toBe(201);
  });

  it('honours Idempotency-Key per subject: a replay returns the same organization, another body is 409', async () => {
    const subject = newSubject();
    const orgless = await idp.mint(subject);
    const send = (name: string, key = 'create-1') =>
      call(app, 'POST', '/v1/organizations', {
        key: orgless,
        json: { display_name: name },
        headers: { 'idempotency-key': key },
      });
    const first = await send('Once');
    const again = await send('Once');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await send('Other'), 409, 'idempotency.key_reused');
    expect([...idp.orgs.values()].filter((o) => o.members.has(subject))).toHaveLength(1);
    // another person's identical request is theirs
    const other = await call(app, 'POST', '/v1/organizations', {
      key: await idp.mint(newSubject()),
      json: { display_name: 'Once' },
      headers: { 'idempotency-key': 'create-1' },
    });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('a provider failure is 502 and writes nothing', async () => {
    const orgless = await idp.mint(newSubject());
    const count = async () => (await app.db.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n as number;
    const before = await count();
    idp.managementDown = true;
    try {
      expectProblem(
        await call(app, 'POST', '/v1/organizations', { key: orgless, json: { display_name: 'Down' } }),
        502,
        'identity_provider.upstream_failure',
      );
    } finally {
      idp.managementDown = false;
    }
    expect(await count()).toBe(before);
  });
});

describe('provisioning on the first request', () => {
  it('concurrent first requests of one person create one organization row and one user row', async () => {
    const subject = newSubject();
    const externalId = `idp-org-external-${subject}`;
    idp.orgs.set(externalId, {
      id: externalId,
      display_name: 'Made Elsewhere',
      members: new Map([[subject, { role: 'admin', email: null }]]),
    });
    const token = await idp.mint(subject);
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => call(app, 'GET', '/v1/api-keys', { key: token })),
    );
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const orgs = await app.db.query('SELECT id, display_name FROM organizations WHERE external_id = $1', [externalId]);
    expect(orgs.rows).toHaveLength(1);
    expect(orgs.rows[0].display_name).toBe('Made Elsewhere');
    const users = await app.db.query('SELECT role FROM users WHERE org_id = $1', [orgs.rows[0].id]);
    expect(users.rows).toEqual([{ role: 'admin' }]);
  });
});

describe('organization delete (SaaS)', () => {
  it('deletes every row of the organization and the provider org; a retry is 401', async () => {
    const owner = await signUp();
    const key = await call(app, 'POST', '/v1/api-keys', { key: owner.token, json: { name: 'k', scopes: ['admin'] } });
    expect(key.status, key.text).toBe(201);
    const scan = await call(app, 'POST', '/v1/scans', {
      key: key.body.secret,
      json: { kind: 'content', surface: 'user_message', content: { type: 'text', text: 'hello there' } },
    });
    expect(scan.status, scan.text).toBe(201);

    const del = await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token });
    expect(del.status, del.text).toBe(204);
    expect(idp.orgs.has(owner.externalOrgId)).toBe(false);
    expectProblem(
      await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token }),
      401,
      'auth.unauthenticated',
    );
    expectProblem(await call(app, 'GET', '/v1/scans', { key: key.body.secret }), 401, 'auth.unauthenticated');
    const { rows } = await app.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'org_id'`,
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const { table_name } of rows) {
      const left = await app.db.query(`SELECT count(*)::int AS n FROM "${table_name}" WHERE org_id = $1`, [
        owner.orgId,
      ]);
      expect(left.rows[0].n, table_name).toBe(0);
    }
    expect((await app.db.query('SELECT 1 FROM organizations WHERE id = $1', [owner.orgId])).rowCount).toBe(0);
    // the stale session is organization-less: it may create a new organization
    expect((await me(owner.token)).body.org_id).toBeNull();
  });

  it('refuses a non-owner, another member or a pending invite with a code per guard; another org id is 404', async () => {
    const owner = await signUp();
    const other = await signUp();
    expectProblem(
      await call(app, 'DELETE', `/v1/organizations/${other.orgId}`, { key: owner.token }),
      404,
      'organizations.not_found',
    );
    const key = await call(app, 'POST', '/v1/api-keys', { key: owner.token, json: { name: 'k', scopes: ['admin'] } });
    expectProblem(
      await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: key.body.secret }),
      409,
      'organizations.delete.not_owner',
    );
    const member = newSubject();
    idp.orgs.get(owner.externalOrgId)!.members.set(member, { role: 'member', email: null });
    const memberToken = await idp.mint(member);
    expect((await me(memberToken)).body.role).toBe('member');
    expectProblem(
      await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: memberToken }),
      409,
      'organizations.delete.not_owner',
    );
    expectProblem(
      await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token }),
      409,
      'organizations.delete.other_members',
    );
    const solo = await signUp();
    const invite = await call(app, 'POST', '/v1/invites', {
      key: solo.token,
      json: { email: 'later@example.com', role: 'member' },
    });
    expect(invite.status, invite.text).toBe(201);
    const del = () => call(app, 'DELETE', `/v1/organizations/${solo.orgId}`, { key: solo.token });
    const refused = await del();
    expectProblem(refused, 409, 'organizations.delete.pending_invites');
    expect(refused.body.pending_invites).toBe(1);
    expect((await call(app, 'POST', `/v1/invites/${invite.body.invite.id}:revoke`, { key: solo.token })).status).toBe(
      204,
    );
    expect((await del()).status).toBe(204);
  });
});
