/**
 * Invites, the admin side: create (the one-time accept URL, only the token's SHA-256 stored), list
 * (actionable only, paged), revoke, tenancy and audit rows — with an owner's SSO session and with an
 * admin API key. Accepting is identity-invites-accept.test.ts; the email, identity-invites-mail.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Reply } from '../support/harness.ts';
import { app, idp, newSubject, signUp, useIdentityApp } from './identity-fixture.ts';

const PUBLIC_URL = 'https://console.firewall.test';
useIdentityApp({ env: { PUBLIC_URL: `${PUBLIC_URL}/`, INVITE_TTL_HOURS: '48' } });

const ACCEPT_URL = /^https:\/\/console\.firewall\.test\/dashboard\/invites\/accept#token=([A-Za-z0-9_-]{43})$/;

const invite = (key: string, email: string, role = 'member', headers?: Record<string, string>) =>
  call(app, 'POST', '/v1/invites', { key, json: { email, role }, headers });
const tokenOf = (r: Reply): string => ACCEPT_URL.exec(r.body.accept_url as string)![1]!;
const list = (key: string, query = '') => call(app, 'GET', `/v1/invites${query}`, { key });
const revoke = (key: string, id: string) => call(app, 'POST', `/v1/invites/${id}:revoke`, { key });
const inviteRow = async (id: string) => (await app.db.query('SELECT * FROM invites WHERE id = $1', [id])).rows[0];
const expire = (id: string) =>
  app.db.query(`UPDATE invites SET expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);

/** An admin API key of the owner's organization, created with the owner's session. */
async function adminKey(ownerToken: string): Promise<{ id: string; secret: string }> {
  const r = await call(app, 'POST', '/v1/api-keys', { key: ownerToken, json: { name: 'admin', scopes: ['admin'] } });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, secret: r.body.secret };
}

/** Accepts `token` as a new person whose session carries `email`. */
async function acceptAsNewPerson(token: string, email: string): Promise<void> {
  const session = await idp.mint(newSubject('invitee'), { email });
  const r = await call(app, 'POST', `/v1/invites/${token}:accept`, { key: session });
  expect(r.status, r.text).toBe(200);
}

describe('invite create', () => {
  it('answers the invite and a one-time accept URL; only the SHA-256 of the 43-character token is stored', async () => {
    const owner = await signUp();
    const before = Date.now();
    const r = await invite(owner.token, 'New.Person@Example.com', 'admin');
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['accept_url', 'invite']);
    expect(Object.keys(r.body.invite).sort()).toEqual(['created_at', 'email', 'expires_at', 'id', 'role']);
    expect(r.body.invite).toMatchObject({ email: 'New.Person@Example.com', role: 'admin' });
    expect(r.body.invite.id).toMatch(/^inv_[0-9A-HJKMNP-TV-Z]{26}$/);
    const created = Date.parse(r.body.invite.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(r.body.invite.expires_at) - created).toBe(48 * 3_600_000);
    expect(r.body.accept_url).toMatch(ACCEPT_URL);
    const token = tokenOf(r);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);

    const row = await inviteRow(r.body.invite.id);
    expect(row.org_id).toBe(owner.orgId);
    expect(Buffer.compare(row.token_hash, createHash('sha256').update(token).digest())).toBe(0);
    const { rows } = await app.db.query(`SELECT row_to_json(i)::text AS j FROM invites i WHERE id = $1`, [row.id]);
    expect(rows[0].j).not.toContain(token);
    // reads never carry it
    expect((await list(owner.token)).text).not.toContain(token);
  });

  it('an admin API key creates invites too; every token differs', async () => {
    const owner = await signUp();
    const key = await adminKey(owner.token);
    const a = await invite(key.secret, 'a@example.com');
    const b = await invite(key.secret, 'a@example.com');
    expect(a.status, a.text).toBe(201);
    expect(b.status, b.text).toBe(201);
    expect(tokenOf(a)).not.toBe(tokenOf(b));
    expect((await inviteRow(a.body.invite.id)).created_by).toBe(key.id);
  });

  it('validates the body', async () => {
    const owner = await signUp();
    const bad = [
      { email: 'not-an-email', role: 'member' },
      { email: `${'x'.repeat(309)}@example.com`, role: 'member' },
      { email: 'a@example.com', role: 'owner' },
      { email: 'a@example.com' },
      { role: 'member' },
      { email: 'a@example.com', role: 'member', extra: true },
    ];
    for (const json of bad)
      expectProblem(
        await call(app, 'POST', '/v1/invites', { key: owner.token, json }),
        400,
        'request.validation_failed',
      );
    expect(
      (await call(app, 'GET', '/v1/invites', { key: owner.token })).body.data,
      'a refused create wrote nothing',
    ).toEqual([]);
  });

  it('honours Idempotency-Key: a replay answers the same invite and accept URL', async () => {
    const owner = await signUp();
    const first = await invite(owner.token, 'once@example.com', 'member', { 'idempotency-key': 'inv-1' });
    const again = await invite(owner.token, 'once@example.com', 'member', { 'idempotency-key': 'inv-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await list(owner.token)).body.data).toHaveLength(1);
  });
});

describe('invite list', () => {
  it('lists only actionable invites, newest first: accepted, revoked and expired ones are left out', async () => {
    const owner = await signUp();
    const made: Reply[] = [];
    for (const email of ['p1@example.com', 'acc@example.com', 'rev@example.com', 'exp@example.com', 'p2@example.com'])
      made.push(await invite(owner.token, email));
    const [p1, accepted, revoked, expired, p2] = made as [Reply, Reply, Reply, Reply, Reply];
    await acceptAsNewPerson(tokenOf(accepted), 'acc@example.com');
    expect((await revoke(owner.token, revoked.body.invite.id)).status).toBe(204);
    await expire(expired.body.invite.id);

    const r = await list(owner.token);
    expect(r.status, r.text).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.data).toEqual([p2.body.invite, p1.body.invite]);
  });

  it('pages by signed cursor; a tampered or foreign cursor is 400 invites.invalid_cursor', async () => {
    const owner = await signUp();
    const key = await adminKey(owner.token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await invite(key.secret, `page${i}@example.com`)).body.invite.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(key.secret, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((i: { id: string }) => i.id));
      cursor = r.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const first = await list(owner.token, '?limit=2');
    const good = first.body.next_cursor as string;
    const mac = good.split('.')[1]!;
    const forged = `${Buffer.from(JSON.stringify({ before: 'inv_ZZZZZZZZZZZZZZZZZZZZZZZZZZ' })).toString('base64url')}.${mac}`;
    for (const bad of [forged, 'garbage', `${good}x`])
      expectProblem(await list(owner.token, `?cursor=${encodeURIComponent(bad)}`), 400, 'invites.invalid_cursor');
    const other = await signUp();
    expectProblem(await list(other.token, `?cursor=${encodeURIComponent(good)}`), 400, 'invites.invalid_cursor');
    expectProblem(await list(owner.token, '?limit=201'), 400, 'request.validation_failed');
  });
});

describe('invite revoke', () => {
  it('204 for a pending invite and again for a revoked or accepted one; the token stops working', async () => {
    const owner = await signUp();
    const pending = await invite(owner.token, 'gone@example.com');
    const id = pending.body.invite.id as string;
    const first = await revoke(owner.token, id);
    expect(first.status, first.text).toBe(204);
    expect(first.text).toBe('');
    const revokedAt = (await inviteRow(id)).revoked_at;
    expect(revokedAt).not.toBeNull();
    expect((await revoke(owner.token, id)).status).toBe(204);
    expect((await inviteRow(id)).revoked_at).toEqual(revokedAt);
    const session = await idp.mint(newSubject(), { email: 'gone@example.com' });
    expectProblem(
      await call(app, 'POST', `/v1/invites/${tokenOf(pending)}:accept`, { key: session }),
      404,
      'invites.not_found',
    );

    const accepted = await invite(owner.token, 'joined@example.com');
    await acceptAsNewPerson(tokenOf(accepted), 'joined@example.com');
    expect((await revoke(owner.token, accepted.body.invite.id)).status).toBe(204);
    const row = await inviteRow(accepted.body.invite.id);
    expect(row.revoked_at).toBeNull();
    expect(row.accepted_at).not.toBeNull();
  });

  it('404 invites.not_found for an unknown id, 400 for a malformed one', async () => {
    const owner = await signUp();
    const key = await adminKey(owner.token);
    expectProblem(await revoke(key.secret, 'inv_01J0000000000000000000000Z'), 404, 'invites.not_found');
    for (const bad of ['inv_123', 'ak_01J0000000000000000000000Z', 'inv_01J0000000000000000000000U'])
      expectProblem(await revoke(key.secret, bad), 400, 'request.validation_failed');
    expectProblem(
      await call(app, 'POST', '/v1/invites/inv_01J0000000000000000000000Z:revoke', {
        key: key.secret,
        json: { reason: 'x' },
      }),
      400,
      'request.validation_failed',
    );
  });
});

describe('tenancy', () => {
  it("another organization's admin neither sees nor revokes the invites: a foreign id is 404 like an unknown one", async () => {
    const a = await signUp();
    const b = await signUp();
    const bKey = await adminKey(b.token);
    const mine = await invite(a.token, 'tenant@example.com');
    const id = mine.body.invite.id as string;
    for (const key of [b.token, bKey.secret]) {
      expect((await list(key)).body.data).toEqual([]);
      const r = await revoke(key, id);
      expectProblem(r, 404, 'invites.not_found');
      expect(r.body.detail).toContain(id);
    }
    expect((await inviteRow(id)).revoked_at).toBeNull();
    expect((await list(a.token)).body.data).toEqual([mine.body.invite]);
  });

  it('an organization-less session and a missing credential cannot create, list or revoke', async () => {
    const owner = await signUp();
    const id = (await invite(owner.token, 'x@example.com')).body.invite.id as string;
    const orgless = await idp.mint(newSubject());
    for (const key of [orgless, undefined]) {
      expectProblem(await call(app, 'GET', '/v1/invites', { key }), 401, 'auth.unauthenticated');
      expectProblem(
        await call(app, 'POST', '/v1/invites', { key, json: { email: 'y@example.com', role: 'member' } }),
        401,
        'auth.unauthenticated',
      );
      expectProblem(await call(app, 'POST', `/v1/invites/${id}:revoke`, { key }), 401, 'auth.unauthenticated');
    }
  });

  it('an API key without the admin scope is 403 auth.insufficient_scope', async () => {
    const owner = await signUp();
    const k = await call(app, 'POST', '/v1/api-keys', {
      key: owner.token,
      json: { name: 'reader', scopes: ['api_keys:read', 'api_keys:write', 'audit:read'] },
    });
    expect(k.status, k.text).toBe(201);
    const id = (await invite(owner.token, 'x@example.com')).body.invite.id as string;
    expectProblem(await invite(k.body.secret, 'y@example.com'), 403, 'auth.insufficient_scope');
    expectProblem(await list(k.body.secret), 403, 'auth.insufficient_scope');
    expectProblem(await revoke(k.body.secret, id), 403, 'auth.insufficient_scope');
  });
});

describe('audit', () => {
  it('records create, revoke (once) and accept as invite events, never the token', async () => {
    const owner = await signUp();
    const key = await adminKey(owner.token);
    const created = await invite(key.secret, 'audited@example.com', 'admin');
    const id = created.body.invite.id as string;
    expect((await revoke(owner.token, id)).status).toBe(204);
    expect((await revoke(owner.token, id)).status).toBe(204);
    const accepted = await invite(owner.token, 'acc2@example.com');
    await acceptAsNewPerson(tokenOf(accepted), 'acc2@example.com');

    const r = await call(app, 'GET', '/v1/audit-events?resource_type=invite', { key: owner.token });
    expect(r.status, r.text).toBe(200);
    const events = r.body.data as { resource_id: string; actor_id: string; change_summary: string; kind: string }[];
    const of = (rid: string) => events.filter((e) => e.resource_id === rid).map((e) => e.change_summary);
    expect(of(id).sort()).toEqual([
      'invite created for audited@example.com as admin',
      expect.stringMatching(/revoked/),
    ]);
    expect(events.find((e) => e.resource_id === id && /created/.test(e.change_summary))!.actor_id).toBe(key.id);
    const acceptedId = accepted.body.invite.id as string;
    expect(of(acceptedId)).toHaveLength(2);
    const acceptEvent = events.find((e) => e.resource_id === acceptedId && /accepted/.test(e.change_summary))!;
    expect(acceptEvent.actor_id).toMatch(/^usr_/);
    expect(events.every((e) => e.kind === 'management')).toBe(true);
    expect(r.text).not.toContain(tokenOf(created));
    expect(r.text).not.toContain(tokenOf(accepted));
  });
});
