import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { SCOPES } from '../../lib/scopes.ts';
import { revokeApiKey, rotateApiKey } from '../../services/api-keys.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

const DAY = 86_400_000;
let app: TestApp;
let org: TestOrg;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  app = await startTestApp({ clock, env: { AUTH_CACHE_TTL_MS: '0' } });
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

const create = (body: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/api-keys', { key, json: body, headers });

describe('POST /v1/api-keys', () => {
  it('mints a live key with every field, the secret once, and a default 90-day expiry', async () => {
    const r = await create({ name: 'ci', scopes: ['scans:write', 'scans:read'] });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/api-keys/${r.body.id}`);
    expect(r.body).toMatchObject({
      name: 'ci',
      prefix: 'sk_live',
      environment: 'live',
      scopes: ['scans:write', 'scans:read'],
      revoked_at: null,
      last_used_at: null,
      rotated_from: null,
    });
    expect(r.body.id).toMatch(/^ak_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.body.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(r.body.last_four).toBe(r.body.secret.slice(-4));
    expect(new Date(r.body.expires_at).getTime() - new Date(r.body.created_at).getTime()).toBe(90 * DAY);
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const got = await call(app, 'GET', `/v1/api-keys/${r.body.id}`, { key: org.admin });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const me = await call(app, 'GET', '/v1/me', { key: r.body.secret });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      type: 'api_key',
      org_id: org.orgId,
      org_display_name: expect.any(String),
      actor_id: r.body.id,
      scopes: ['scans:write', 'scans:read'],
      deployment_mode: 'self_hosted',
    });
  });

  it('uses the sk_test_ prefix for test keys', async () => {
    const r = await create({ name: 't', scopes: ['scans:read'], environment: 'test' });
    expect(r.status).toBe(201);
    expect(r.body.prefix).toBe('sk_test');
    expect(r.body.secret).toMatch(/^sk_test_/);
  });

  it('honours no_expiry and an explicit expires_at', async () => {
    const never = await create({ name: 'n', scopes: ['scans:read'], no_expiry: true });
    expect(never.body.expires_at).toBeNull();
    const at = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    const explicit = await create({ name: 'e', scopes: ['scans:read'], expires_at: at });
    expect(explicit.body.expires_at).toBe(at);
    const nullish = await create({ name: 'z', scopes: ['scans:read'], expires_at: null });
    expect(new Date(nullish.body.expires_at).getTime() - clock.now().getTime()).toBe(90 * DAY);
  });

  it.each([
    ['a missing name', { scopes: ['admin'] }, 'name'],
    ['an empty name', { name: '', scopes: ['admin'] }, 'name'],
    ['a 121-char name', { name: 'x'.repeat(121), scopes: ['admin'] }, 'name'],
    ['a blank name', { name: '   ', scopes: ['admin'] }, 'name'],
    ['empty scopes', { name: 'a', scopes: [] }, 'scopes'],
    ['an unknown scope', { name: 'a', scopes: ['scans:delete'] }, 'scopes.0'],
    ['a bad environment', { name: 'a', scopes: ['admin'], environment: 'prod' }, 'environment'],
    ['a malformed expires_at', { name: 'a', scopes: ['admin'], expires_at: 'tomorrow' }, 'expires_at'],
    ['a past expires_at', { name: 'a', scopes: ['admin'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [
      'no_expiry with expires_at',
      { name: 'a', scopes: ['admin'], no_expiry: true, expires_at: '2099-01-01T00:00:00Z' },
      'no_expiry',
    ],
    ['an unknown field', { name: 'a', scopes: ['admin'], owner: 'me' }, ''],
    ['a non-object body', [1, 2], ''],
  ])('rejects %s with 400 naming the field', async (_label, body, path) => {
    const r = await create(body);
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('accepts a 120-char name and all 17 scopes', async () => {
    const r = await create({ name: 'x'.repeat(120), scopes: [...SCOPES] });
    expect(r.status).toBe(201);
    expect(r.body.scopes).toHaveLength(17);
  });

  it('refuses to grant scopes the caller lacks (admin may grant any)', async () => {
    const writer = await buildApiKey(app, org.orgId, { scopes: ['api_keys:write', 'scans:read'] });
    const ok = await create({ name: 'a', scopes: ['scans:read'] }, writer.secret);
    expect(ok.status).toBe(201);
    const r = await create({ name: 'a', scopes: ['scans:read', 'admin'] }, writer.secret);
    expectProblem(r, 403, 'api_keys.scope_escalation');
    expect(r.body.scopes).toEqual(['admin']);
  });

  it('writes a management audit row without the secret', async () => {
    const r = await create({ name: 'audited', scopes: ['scans:read'] }, org.admin, { 'x-request-id': 'audit-req-1' });
    const { rows } = await app.db.query(`SELECT * FROM audit_events WHERE org_id = $1 AND resource_id = $2`, [
      org.orgId,
      r.body.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'management',
      resource_type: 'api_key',
      actor_id: org.adminId,
      request_id: 'audit-req-1',
    });
    expect(rows[0].change_summary).toContain('audited');
    expect(rows[0].change_summary).not.toContain(r.body.secret);
  });

  it('stores only a keyed hash of the secret', async () => {
    const r = await create({ name: 'h', scopes: ['scans:read'] });
    const { rows } = await app.db.query(`SELECT * FROM api_keys WHERE id = $1`, [r.body.id]);
    const dump = JSON.stringify(rows[0]);
    expect(dump).not.toContain(r.body.secret);
    expect(dump).not.toContain(r.body.secret.slice(8));
    expect(rows[0].secret_hash).toHaveLength(32);
  });
});

describe('scopes', () => {
  it('403 names the missing scope; admin implies every scope', async () => {
    const reader = await buildApiKey(app, org.orgId, { scopes: ['api_keys:read'] });
    const r = await create({ name: 'a', scopes: ['scans:read'] }, reader.secret);
    expectProblem(r, 403, 'auth.insufficient_scope');
    expect(r.body.detail).toContain('api_keys:write');
    expect((await call(app, 'GET', '/v1/api-keys', { key: reader.secret })).status).toBe(200);
    const scanner = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    const denied = await call(app, 'GET', '/v1/api-keys', { key: scanner.secret });
    expectProblem(denied, 403, 'auth.insufficient_scope');
    expect(denied.body.detail).toContain('api_keys:read');
    // /v1/me is unscoped
    expect((await call(app, 'GET', '/v1/me', { key: scanner.secret })).status).toBe(200);
  });
});

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['a non-bearer scheme', { authorization: 'Basic YWJjOmRlZg==' }],
    ['a malformed token', { authorization: 'Bearer nope' }],
    ['an unknown well-formed key', { authorization: `Bearer sk_live_${'A'.repeat(43)}` }],
  ])('401 auth.unauthenticated for %s', async (_l, headers) => {
    const r = await call(app, 'GET', '/v1/me', { headers });
    expectProblem(r, 401, 'auth.unauthenticated');
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('401 auth.api_key.expired once expires_at passes', async () => {
    const at = new Date(clock.now().getTime() + 60_000);
    const k = await buildApiKey(app, org.orgId, { scopes: ['scans:read'], expires_at: at });
    expect((await call(app, 'GET', '/v1/me', { key: k.secret })).status).toBe(200);
    clock.advance(61_000);
    expectProblem(await call(app, 'GET', '/v1/me', { key: k.secret }), 401, 'auth.api_key.expired');
  });

  it('records last_used_at', async () => {
    const k = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    await call(app, 'GET', '/v1/me', { key: k.secret });
    await expect
      .poll(async () => (await call(app, 'GET', `/v1/api-keys/${k.key.id}`, { key: org.admin })).body.last_used_at)
      .not.toBeNull();
  });
});

describe('list', () => {
  it('pages newest first with a signed cursor and rejects a tampered one', async () => {
    const o = await buildOrg(app);
    for (let i = 0; i < 4; i++) await buildApiKey(app, o.orgId, { name: `k${i}`, scopes: ['scans:read'] });
    const first = await call(app, 'GET', '/v1/api-keys?limit=2', { key: o.admin });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].secret).toBeUndefined();
    expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['k3', 'k2']);
    const second = await call(app, 'GET', `/v1/api-keys?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, {
      key: o.admin,
    });
    expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['k1', 'k0']);
    const third = await call(app, 'GET', `/v1/api-keys?limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`, {
      key: o.admin,
    });
    expect(third.body.data.map((k: { name: string }) => k.name)).toEqual(['test key']);
    expect(third.body.next_cursor).toBeNull();

    const c: string = first.body.next_cursor;
    const tampered = `${c.slice(0, 3)}${c[3] === 'A' ? 'B' : 'A'}${c.slice(4)}`;
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?cursor=${encodeURIComponent(tampered)}`, { key: o.admin }),
      400,
      'api_keys.invalid_cursor',
    );
    expectProblem(
      await call(app, 'GET', '/v1/api-keys?cursor=garbage', { key: o.admin }),
      400,
      'api_keys.invalid_cursor',
    );
    // A cursor minted for another organization is just as invalid.
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?cursor=${encodeURIComponent(c)}`, { key: org.admin }),
      400,
      'api_keys.invalid_cursor',
    );
  });

  it.each(['0', '201', 'abc', '1.5'])('rejects limit=%s', async (limit) => {
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?limit=${limit}`, { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });

  it('accepts limit 1 and 200, and rejects unknown query parameters', async () => {
    expect((await call(app, 'GET', '/v1/api-keys?limit=1', { key: org.admin })).body.data).toHaveLength(1);
    expect((await call(app, 'GET', '/v1/api-keys?limit=200', { key: org.admin })).status).toBe(200);
    expectProblem(
      await call(app, 'GET', '/v1/api-keys?colour=red', { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });
});

describe('revoke', () => {
  it('revokes at once: 204, revoked_at set, the key stops working, repeat is a no-op', async () => {
    const k = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    expect((await call(app, 'GET', '/v1/me', { key: k.secret })).status).toBe(200);
    const r = await call(app, 'POST', `/v1/api-keys/${k.key.id}:revoke`, { key: org.admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectProblem(await call(app, 'GET', '/v1/me', { key: k.secret }), 401, 'auth.api_key.revoked');
    const got = await call(app, 'GET', `/v1/api-keys/${k.key.id}`, { key: org.admin });
    expect(got.body.revoked_at).not.toBeNull();
    const again = await call(app, 'POST', `/v1/api-keys/${k.key.id}:revoke`, { key: org.admin });
    expect(again.status).toBe(204);
    expect((await call(app, 'GET', `/v1/api-keys/${k.key.id}`, { key: org.admin })).body.revoked_at).toBe(
      got.body.revoked_at,
    );
    const { rows } = await app.db.query(`SELECT change_summary FROM audit_events WHERE resource_id = $1 ORDER BY id`, [
      k.key.id,
    ]);
    expect(rows.map((x) => x.change_summary)).toEqual([
      expect.stringContaining('created'),
      expect.stringContaining('revoked'),
    ]);
  });

  it('404 for an unknown id, 400 for a malformed one', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/api-keys/ak_00000000000000000000000000:revoke', { key: org.admin }),
      404,
      'api_keys.not_found',
    );
    expectProblem(
      await call(app, 'POST', '/v1/api-keys/ak_123:revoke', { key: org.admin }),
      400,
      'request.validation_failed',
    );
    expectProblem(
      await call(app, 'GET', '/v1/api-keys/not-an-id', { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });
});

describe('rotate', () => {
  it('mints a successor inheriting name, scopes, environment and expires_at; the old key dies at once', async () => {
    const expires = new Date(clock.now().getTime() + 10 * DAY);
    const old = await buildApiKey(app, org.orgId, {
      name: 'rotating',
      scopes: ['scans:read', 'scans:write'],
      environment: 'test',
      expires_at: expires,
    });
    const r = await call(app, 'POST', `/v1/api-keys/${old.key.id}:rotate`, { key: org.admin });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'rotating',
      scopes: ['scans:read', 'scans:write'],
      environment: 'test',
      prefix: 'sk_test',
      rotated_from: old.key.id,
      expires_at: expires.toISOString(),
      revoked_at: null,
    });
    expect(r.body.id).not.toBe(old.key.id);
    expect(r.body.secret).toMatch(/^sk_test_/);
    expect(r.body.last_four).toBe(r.body.secret.slice(-4));
    expectProblem(await call(app, 'GET', '/v1/me', { key: old.secret }), 401, 'auth.api_key.revoked');
    expect((await call(app, 'GET', '/v1/me', { key: r.body.secret })).body.actor_id).toBe(r.body.id);
    expect((await call(app, 'GET', `/v1/api-keys/${old.key.id}`, { key: org.admin })).body.revoked_at).not.toBeNull();
  });

  it('409 when the key is already revoked; 404 when unknown', async () => {
    const k = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    await call(app, 'POST', `/v1/api-keys/${k.key.id}:rotate`, { key: org.admin });
    expectProblem(
      await call(app, 'POST', `/v1/api-keys/${k.key.id}:rotate`, { key: org.admin }),
      409,
      'api_keys.already_revoked',
    );
    expectProblem(
      await call(app, 'POST', '/v1/api-keys/ak_00000000000000000000000000:rotate', { key: org.admin }),
      404,
      'api_keys.not_found',
    );
  });

  it('concurrent rotations of one key yield exactly one successor', async () => {
    const k = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(app, 'POST', `/v1/api-keys/${k.key.id}:rotate`, { key: org.admin })),
    );
    expect(results.map((x) => x.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE rotated_from = $1', [k.key.id]);
    expect(rows[0].n).toBe(1);
  });
});

describe('revoke and rotate follow the grant rule (a key acts only on keys whose every scope it holds)', () => {
  const successors = async (id: string) =>
    (await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE rotated_from = $1', [id])).rows[0].n as number;
  const auditRows = async (id: string) =>
    (await app.db.query('SELECT count(*)::int AS n FROM audit_events WHERE resource_id = $1', [id])).rows[0]
      .n as number;
  const act = (id: string, action: 'rotate' | 'revoke', key: string) =>
    call(app, 'POST', `/v1/api-keys/${id}:${action}`, { key });

  it.each(['rotate', 'revoke'] as const)(
    'an api_keys:write key cannot %s an admin key: 403 naming admin, nothing changes',
    async (action) => {
      const writer = await buildApiKey(app, org.orgId, { scopes: ['api_keys:write'] });
      const target = await buildApiKey(app, org.orgId, { scopes: ['admin'] });
      const r = await act(target.key.id, action, writer.secret);
      expectProblem(r, 403, 'api_keys.scope_escalation');
      expect(r.body.scopes).toEqual(['admin']);
      expect(r.body.detail).toContain(action);
      expect(r.text).not.toMatch(/sk_live_/);
      // The admin key still works, was not revoked, has no successor and no audit row beyond its creation.
      expect((await call(app, 'GET', '/v1/me', { key: target.secret })).body.actor_id).toBe(target.key.id);
      expect((await call(app, 'GET', `/v1/api-keys/${target.key.id}`, { key: org.admin })).body.revoked_at).toBeNull();
      expect(await successors(target.key.id)).toBe(0);
      expect(await auditRows(target.key.id)).toBe(1);
    },
  );

  it.each(['rotate', 'revoke'] as const)('%s names only the scopes the caller lacks', async (action) => {
    const writer = await buildApiKey(app, org.orgId, { scopes: ['api_keys:write', 'scans:read'] });
    const target = await buildApiKey(app, org.orgId, { scopes: ['scans:read', 'webhooks:write', 'policies:write'] });
    const r = await act(target.key.id, action, writer.secret);
    expectProblem(r, 403, 'api_keys.scope_escalation');
    expect(r.body.scopes).toEqual(['webhooks:write', 'policies:write']);
    expect(await successors(target.key.id)).toBe(0);
  });

  it('a key may rotate and revoke keys with a subset of its scopes, itself included', async () => {
    const writer = await buildApiKey(app, org.orgId, { scopes: ['api_keys:write', 'scans:read', 'scans:write'] });
    const a = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    const rotated = await act(a.key.id, 'rotate', writer.secret);
    expect(rotated.status).toBe(201);
    expect(rotated.body.scopes).toEqual(['scans:read']);
    const b = await buildApiKey(app, org.orgId, { scopes: ['scans:read', 'scans:write'] });
    expect((await act(b.key.id, 'revoke', writer.secret)).status).toBe(204);
    // Its own scopes are its own: self-rotation is allowed, and the successor may revoke itself.
    const self = await act(writer.key.id, 'rotate', writer.secret);
    expect(self.status).toBe(201);
    expect((await act(self.body.id, 'revoke', self.body.secret)).status).toBe(204);
  });

  it('admin may rotate and revoke any key, admin keys included', async () => {
    const target = await buildApiKey(app, org.orgId, { scopes: ['admin'] });
    const rotated = await act(target.key.id, 'rotate', org.admin);
    expect(rotated.status).toBe(201);
    expect(rotated.body.scopes).toEqual(['admin']);
    expect((await act(rotated.body.id, 'revoke', org.admin)).status).toBe(204);
  });

  it('order of checks: another organization’s id is 404 (never 403); a revoked key the caller may act on is 409 on rotate', async () => {
    const writer = await buildApiKey(app, org.orgId, { scopes: ['api_keys:write', 'scans:read'] });
    const elsewhere = await buildOrg(app);
    for (const action of ['rotate', 'revoke'] as const)
      expectProblem(await act(elsewhere.adminId, action, writer.secret), 404, 'api_keys.not_found');
    const mine = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    expect((await act(mine.key.id, 'revoke', writer.secret)).status).toBe(204);
    expectProblem(await act(mine.key.id, 'rotate', writer.secret), 409, 'api_keys.already_revoked');
    // A key the caller may not act on gets the same 403 whatever its state.
    const revokedAdmin = await buildApiKey(app, org.orgId, { scopes: ['admin'] });
    expect((await act(revokedAdmin.key.id, 'revoke', org.admin)).status).toBe(204);
    expectProblem(await act(revokedAdmin.key.id, 'rotate', writer.secret), 403, 'api_keys.scope_escalation');
    expectProblem(await act(revokedAdmin.key.id, 'revoke', writer.secret), 403, 'api_keys.scope_escalation');
  });

  it('the CLI actor (no scopes) stays trusted', async () => {
    const target = await buildApiKey(app, org.orgId, { scopes: ['admin'] });
    const cli = { id: 'cli', requestId: null };
    const minted = await rotateApiKey(app.built.services.apiKeys, org.orgId, target.key.id, cli);
    expect(minted.key.scopes).toEqual(['admin']);
    await revokeApiKey(app.built.services.apiKeys, org.orgId, minted.key.id, cli);
    expect(
      (await call(app, 'GET', `/v1/api-keys/${minted.key.id}`, { key: org.admin })).body.revoked_at,
    ).not.toBeNull();
  });
});
