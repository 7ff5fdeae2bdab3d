// Policies: tenancy (another organization sees nothing), scopes, 405 and malformed ids.
import { describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, expectProblem } from '../support/harness.ts';
import { app, body, create, org, other, scan, usePoliciesApp } from './policies-fixture.ts';

usePoliciesApp();

describe('tenancy and scopes', () => {
  it('another organization cannot read, list, replace, delete, simulate or scan with a policy', async () => {
    const p = (await create(body({ name: 'secret policy' }))).body;
    const stored = await scan('hello');
    expectProblem(await call(app, 'GET', `/v1/policies/${p.id}`, { key: other.admin }), 404, 'policies.not_found');
    expect(
      (await call(app, 'GET', '/v1/policies?limit=200', { key: other.admin })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).not.toContain(p.id);
    expectProblem(
      await call(app, 'PUT', `/v1/policies/${p.id}`, { key: other.admin, json: body() }),
      404,
      'policies.not_found',
    );
    expectProblem(await call(app, 'DELETE', `/v1/policies/${p.id}`, { key: other.admin }), 404, 'policies.not_found');
    expectProblem(
      await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
        key: other.admin,
        json: { surface: 'user_message', findings: [] },
      }),
      404,
      'policies.not_found',
    );
    expectProblem(await scan('hello', { policy_id: p.id }, {}, other.admin), 404, 'policies.not_found');
    // Its own policy cannot re-evaluate our scan.
    const theirs = (await create(body(), other.admin)).body;
    expectProblem(
      await call(app, 'POST', `/v1/policies/${theirs.id}:simulate`, {
        key: other.admin,
        json: { scan_id: stored.body.id },
      }),
      404,
      'scans.not_found',
    );
    expect((await call(app, 'GET', `/v1/policies/${p.id}`, { key: org.admin })).body.name).toBe('secret policy');
    // A default policy of theirs does not decide our scans.
    await create(body({ rules: [], default_action: 'blocked', is_default: true }), other.admin);
    const ours = await buildOrg(app);
    expect((await scan('hello', {}, {}, ours.admin)).body.decision.action).toBe('allowed');
  });

  it('reads need policies:read, writes policies:write', async () => {
    const reader = (await buildApiKey(app, org.orgId, { scopes: ['policies:read'] })).secret;
    const writer = (await buildApiKey(app, org.orgId, { scopes: ['policies:write'] })).secret;
    const p = (await create(body())).body;
    expect((await call(app, 'GET', `/v1/policies/${p.id}`, { key: reader })).status).toBe(200);
    expect(
      (
        await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
          key: reader,
          json: { surface: 'user_message', findings: [] },
        })
      ).status,
    ).toBe(200);
    const denied = await create(body(), reader);
    expectProblem(denied, 403, 'auth.insufficient_scope');
    expect(denied.body.detail).toContain('policies:write');
    expectProblem(await call(app, 'DELETE', `/v1/policies/${p.id}`, { key: reader }), 403, 'auth.insufficient_scope');
    expectProblem(await call(app, 'GET', '/v1/policies', { key: writer }), 403, 'auth.insufficient_scope');
    expect((await create(body(), writer)).status).toBe(201);
  });

  it('answers 405 with Allow, and 400 for a malformed id', async () => {
    const r = await call(app, 'PATCH', '/v1/policies/pol_01HZZZZZZZZZZZZZZZZZZZZZZZ', { key: org.admin, json: {} });
    expectProblem(r, 405, 'request.method_not_allowed');
    expect(r.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    expectProblem(
      await call(app, 'GET', '/v1/policies/pol_nope', { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });
});
