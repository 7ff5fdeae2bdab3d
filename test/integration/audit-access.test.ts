// Audit events: tenancy (another organization sees none, cannot use our cursor), audit:read, 401, 405.
import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import { app, audit, org, other, useAuditApp, walk } from './audit-fixture.ts';

useAuditApp();

describe('access', () => {
  it("another organization sees none of these events and cannot use this organization's cursor", async () => {
    const theirs = await walk('', 10_000, other.admin);
    const ours = new Set((await walk('', 10_000)).map((e) => e.id));
    expect(theirs.some((e) => ours.has(e.id))).toBe(false);
    expect(theirs.every((e) => e.scan_id === null)).toBe(true);
    const { next_cursor } = (await audit('?limit=1')).body;
    expectProblem(await audit(`?cursor=${next_cursor}`, other.admin), 400, 'audit.invalid_cursor');
    expect((await audit(`?agent_id=agent-a`, other.admin)).body.data).toEqual([]);
  });

  it('needs audit:read (403 names it) and a key (401)', async () => {
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:read', 'api_keys:read'] });
    const denied = await audit('', secret);
    expectProblem(denied, 403, 'auth.insufficient_scope');
    expect(denied.body.detail).toContain('audit:read');
    expectProblem(await audit('', secret, { accept: 'text/csv' }), 403, 'auth.insufficient_scope');
    const reader = await buildApiKey(app, org.orgId, { scopes: ['audit:read'] });
    expect((await audit('', reader.secret)).status).toBe(200);
    expectProblem(await call(app, 'GET', '/v1/audit-events'), 401, 'auth.unauthenticated');
  });

  it('other methods are 405', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/audit-events', { key: org.admin, json: {} }),
      405,
      'request.method_not_allowed',
    );
  });
});
