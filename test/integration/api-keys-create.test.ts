// API keys: creation (fields, validation, the grant rule, audit, hashed storage) and the scopes the key routes require.
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../lib/scopes.ts';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import { app, clock, create, DAY, org, useApiKeysApp } from './api-keys-fixture.ts';

useApiKeysApp();

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
