// API keys as credentials: 401 for a missing, malformed, unknown or expired key; last_used_at.
import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import { app, clock, org, useApiKeysApp } from './api-keys-fixture.ts';

useApiKeysApp();

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
