/**
 * The member list (GET /v1/users) and what every member route refuses: signed keyset cursors,
 * access, validation, tenancy. Role changes and removals: identity-members-changes.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Reply } from '../support/harness.ts';
import type { Role } from '../support/oidc-issuer.ts';
import { app, idp, me, newSubject, signUp, useIdentityApp, type SignedUp } from './identity-fixture.ts';

useIdentityApp();

interface Member {
  subject: string;
  token: string;
  id: string;
  email: string;
}

/** Puts a person in the owner's organization at the issuer and provisions their user row (one request). */
async function addMember(owner: SignedUp, role: Role): Promise<Member> {
  const subject = newSubject(role);
  const email = `${subject}@example.com`;
  idp.orgs.get(owner.externalOrgId)!.members.set(subject, { role, email });
  const token = await idp.mint(subject);
  const who = await me(token);
  expect(who.body.role, who.text).toBe(role);
  return { subject, token, id: who.body.actor_id as string, email };
}

const list = (token: string, query = ''): Promise<Reply> => call(app, 'GET', `/v1/users${query}`, { key: token });

/** Every page of the list, `limit` at a time. */
async function allPages(token: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: Reply = await list(token, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...r.body.data.map((u: { id: string }) => u.id));
    cursor = r.body.next_cursor as string | null;
    pages += 1;
  } while (cursor);
  return { ids, pages };
}

const ownerMe = async (owner: SignedUp) => (await me(owner.token)).body.actor_id as string;

describe('GET /v1/users', () => {
  it('lists the active members newest first, as User resources', async () => {
    const owner = await signUp();
    const added: Member[] = [];
    for (const role of ['admin', 'member', 'member'] as const) {
      await sleep(5); // distinct created_at: the order is the provisioning order, reversed
      added.push(await addMember(owner, role));
    }
    const r = await list(owner.token);
    expect(r.status, r.text).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    const ownerId = await ownerMe(owner);
    expect(r.body.data.map((u: { id: string }) => u.id)).toEqual([...added.map((m) => m.id).reverse(), ownerId]);
    expect(r.body.data[0]).toEqual({
      id: added[2]!.id,
      email: added[2]!.email,
      role: 'member',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(r.body.data.at(-1)).toMatchObject({ id: ownerId, role: 'owner' });
    expect(r.body.data[0].id).toMatch(/^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('pages through every member with limit 2: no duplicates, no gaps, ties broken by id descending', async () => {
    const owner = await signUp();
    const added: Member[] = [];
    for (let i = 0; i < 6; i += 1) added.push(await addMember(owner, i % 2 ? 'admin' : 'member'));
    // four members share one instant: the page boundaries fall inside the tie
    const tied = added.slice(1, 5).map((m) => m.id);
    await app.db.query(`UPDATE users SET created_at = '2026-03-01T12:00:00.123Z' WHERE id = ANY($1)`, [tied]);

    const full = await list(owner.token, '?limit=200');
    expect(full.status, full.text).toBe(200);
    const rows = full.body.data as { id: string; created_at: string }[];
    expect(rows).toHaveLength(7);
    const sorted = [...rows].sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    );
    expect(rows).toEqual(sorted);

    const { ids, pages } = await allPages(owner.token, 2);
    expect(pages).toBe(4);
    expect(ids).toEqual(rows.map((u) => u.id));
    expect(new Set(ids).size).toBe(7);
  });

  it('refuses a tampered, malformed, forged or foreign cursor with 400 users.invalid_cursor', async () => {
    const owner = await signUp();
    const other = await signUp();
    for (const o of [owner, other]) for (let i = 0; i < 2; i += 1) await addMember(o, 'member');
    const first = await list(owner.token, '?limit=1');
    const cursor = first.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect((await list(owner.token, `?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);

    const flipped = (at: number) => {
      const c = cursor[at]!;
      return `${cursor.slice(0, at)}${c === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
    };
    const foreign = (await list(other.token, '?limit=1')).body.next_cursor as string;
    const codec = app.built.services.cursors;
    const bad = [
      flipped(0),
      flipped(cursor.indexOf('.') - 1),
      flipped(cursor.indexOf('.') + 1),
      'not-a-cursor',
      `${cursor}x`,
      foreign,
      // signed by us, but not a member-list position
      codec.encode('users', owner.orgId, { before: 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
      codec.encode('users', owner.orgId, { created_at: 'yesterday', id: 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
      codec.encode('users', owner.orgId, {
        created_at: '2026-01-01T00:00:00.000Z',
        id: 'ak_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      }),
      codec.encode('users', owner.orgId, { created_at: '2026-01-01T00:00:00.000Z', id: 7 }),
      // another list's cursor
      codec.encode('api_keys', owner.orgId, {
        created_at: '2026-01-01T00:00:00.000Z',
        id: 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      }),
    ];
    for (const c of bad)
      expectProblem(await list(owner.token, `?cursor=${encodeURIComponent(c)}`), 400, 'users.invalid_cursor');
    expectProblem(await list(owner.token, '?limit=201'), 400, 'request.validation_failed');
    expectProblem(await list(owner.token, '?limit=0'), 400, 'request.validation_failed');
  });

  it('needs the admin scope: a member is 403 auth.insufficient_scope; an admin user and an admin key may list', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const admin = await addMember(owner, 'admin');
    const refused = await list(member.token);
    expectProblem(refused, 403, 'auth.insufficient_scope');
    expect(refused.body.required_scope).toBe('admin');
    expectProblem(
      await call(app, 'PATCH', `/v1/users/${admin.id}`, { key: member.token, json: { role: 'member' } }),
      403,
      'auth.insufficient_scope',
    );
    expectProblem(
      await call(app, 'DELETE', `/v1/users/${admin.id}`, { key: member.token }),
      403,
      'auth.insufficient_scope',
    );
    expect((await list(admin.token)).status).toBe(200);
    const key = await call(app, 'POST', '/v1/api-keys', { key: owner.token, json: { name: 'k', scopes: ['admin'] } });
    const byKey = await list(key.body.secret as string);
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body.data).toHaveLength(3);
    const readOnly = await call(app, 'POST', '/v1/api-keys', {
      key: owner.token,
      json: { name: 'r', scopes: ['api_keys:read'] },
    });
    expectProblem(await list(readOnly.body.secret as string), 403, 'auth.insufficient_scope');
    expectProblem(await list(await idp.mint(newSubject())), 401, 'auth.unauthenticated');
    expectProblem(await call(app, 'GET', '/v1/users'), 401, 'auth.unauthenticated');
  });
});

describe('member ids and bodies', () => {
  it('an unknown id is 404 users.not_found; a malformed id or body is 400 request.validation_failed', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const unknown = 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const patch = (id: string, json: unknown) => call(app, 'PATCH', `/v1/users/${id}`, { key: owner.token, json });
    expectProblem(await patch(unknown, { role: 'admin' }), 404, 'users.not_found');
    expectProblem(await call(app, 'DELETE', `/v1/users/${unknown}`, { key: owner.token }), 404, 'users.not_found');
    for (const id of ['usr_x', 'usr_01arz3ndektsv4rrffq69g5fav', 'ak_01ARZ3NDEKTSV4RRFFQ69G5FAV', `${unknown}0`]) {
      expectProblem(await patch(id, { role: 'admin' }), 400, 'request.validation_failed');
      expectProblem(
        await call(app, 'DELETE', `/v1/users/${id}`, { key: owner.token }),
        400,
        'request.validation_failed',
      );
    }
    for (const body of [{}, { role: 'boss' }, { role: 'admin', email: 'x@example.com' }, { role: null }])
      expectProblem(await patch(member.id, body), 400, 'request.validation_failed');
    expect((await me(member.token)).body.role).toBe('member');
  });
});

describe('tenancy', () => {
  it("another organization's owner cannot list, change or remove this organization's members: 404 as if unknown", async () => {
    const a = await signUp();
    const b = await signUp();
    const member = await addMember(a, 'admin');
    const aOwner = await ownerMe(a);
    const bList = await list(b.token);
    expect(bList.body.data.map((u: { id: string }) => u.id)).toEqual([await ownerMe(b)]);
    for (const id of [member.id, aOwner]) {
      expectProblem(
        await call(app, 'PATCH', `/v1/users/${id}`, { key: b.token, json: { role: 'member' } }),
        404,
        'users.not_found',
      );
      expectProblem(await call(app, 'DELETE', `/v1/users/${id}`, { key: b.token }), 404, 'users.not_found');
    }
    const bKey = await call(app, 'POST', '/v1/api-keys', { key: b.token, json: { name: 'k', scopes: ['admin'] } });
    expectProblem(
      await call(app, 'DELETE', `/v1/users/${member.id}`, { key: bKey.body.secret }),
      404,
      'users.not_found',
    );
    const still = await list(a.token);
    expect(still.body.data).toHaveLength(2);
    expect(still.body.data.find((u: { id: string }) => u.id === member.id)?.role).toBe('admin');
    expect(idp.orgs.get(a.externalOrgId)!.members.get(member.subject)?.role).toBe('admin');
  });
});
