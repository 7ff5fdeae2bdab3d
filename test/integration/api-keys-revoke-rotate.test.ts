// API keys: revoke and rotate, and the grant rule they follow (a key acts only on keys whose every scope it holds).
import { describe, expect, it } from 'vitest';
import { revokeApiKey, rotateApiKey } from '../../services/api-keys.ts';
import { buildApiKey, buildOrg, call, expectProblem } from '../support/harness.ts';
import { app, clock, DAY, org, useApiKeysApp } from './api-keys-fixture.ts';

useApiKeysApp();

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
