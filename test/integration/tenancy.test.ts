import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let a: TestOrg;
let b: TestOrg;
let victim: string;

beforeAll(async () => {
  app = await startTestApp();
  a = await buildOrg(app, 'Tenant A');
  b = await buildOrg(app, 'Tenant B');
  victim = (await buildApiKey(app, a.orgId, { name: 'a-only', scopes: ['scans:read'] })).key.id;
});
afterAll(async () => app?.close());

describe('organization B and organization A\'s API keys', () => {
  it('B cannot list them', async () => {
    const r = await call(app, 'GET', '/v1/api-keys?limit=200', { key: b.admin });
    expect(r.status).toBe(200);
    expect(r.body.data.map((k: { id: string }) => k.id)).not.toContain(victim);
    expect(r.body.data.every((k: { name: string }) => k.name !== 'a-only')).toBe(true);
  });
  it('B cannot read one (404, as if unknown)', async () => {
    expectProblem(await call(app, 'GET', `/v1/api-keys/${victim}`, { key: b.admin }), 404, 'api_keys.not_found');
  });
  it('B cannot revoke one', async () => {
    expectProblem(await call(app, 'POST', `/v1/api-keys/${victim}:revoke`, { key: b.admin }), 404, 'api_keys.not_found');
    expect((await call(app, 'GET', `/v1/api-keys/${victim}`, { key: a.admin })).body.revoked_at).toBeNull();
  });
  it('B cannot rotate one', async () => {
    expectProblem(await call(app, 'POST', `/v1/api-keys/${victim}:rotate`, { key: b.admin }), 404, 'api_keys.not_found');
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE rotated_from = $1', [victim]);
    expect(rows[0].n).toBe(0);
  });
  it('each key identifies its own organization', async () => {
    expect((await call(app, 'GET', '/v1/me', { key: a.admin })).body.org_id).toBe(a.orgId);
    expect((await call(app, 'GET', '/v1/me', { key: b.admin })).body.org_id).toBe(b.orgId);
  });
  it('B\'s audit rows never mention A\'s resources', async () => {
    const { rows } = await app.db.query('SELECT resource_id FROM audit_events WHERE org_id = $1', [b.orgId]);
    expect(rows.map((r) => r.resource_id)).not.toContain(victim);
  });
});
