import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appsClosedAfterEach, buildApiKey, buildOrg, call, isolatedDatabase } from '../support/harness.ts';

// Two apps on one database stand for two processes of one deployment.
const start = appsClosedAfterEach();

const prefix = () => `cf_test_${randomBytes(4).toString('hex')}:`;

describe('with Redis', () => {
  it("a revocation reaches another process's auth cache within 1 s", async () => {
    const p = prefix();
    const one = await start({ redisPrefix: p });
    const two = await start({ redisPrefix: p });
    expect(two.config.AUTH_CACHE_TTL_MS).toBe(30_000);
    const org = await buildOrg(one);
    const k = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
    expect((await call(two, 'GET', '/v1/me', { key: k.secret })).status).toBe(200); // now cached in two
    expect((await call(one, 'POST', `/v1/api-keys/${k.key.id}:revoke`, { key: org.admin })).status).toBe(204);
    await expect
      .poll(async () => (await call(two, 'GET', '/v1/me', { key: k.secret })).status, { timeout: 1_000, interval: 50 })
      .toBe(401);
  });

  it('after a lost Redis connection, a process drops its whole auth cache (messages may have been missed)', async () => {
    const p = prefix();
    const one = await start({ redisPrefix: p });
    const org = await buildOrg(one);
    const k = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
    expect((await call(one, 'GET', '/v1/me', { key: k.secret })).status).toBe(200); // cached for 30 s
    // A revocation whose message never arrives: written straight to the database.
    await one.db.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND id = $2', [org.orgId, k.key.id]);
    expect((await call(one, 'GET', '/v1/me', { key: k.secret })).status).toBe(200); // still cached
    await one.redis!.client('KILL', 'TYPE', 'pubsub');
    await expect
      .poll(async () => (await call(one, 'GET', '/v1/me', { key: k.secret })).status, { timeout: 5_000, interval: 50 })
      .toBe(401);
  });

  it("a policy change reaches another process's policy cache at once (its TTL is 30 s)", async () => {
    const p = prefix();
    const one = await start({ redisPrefix: p });
    const two = await start({ redisPrefix: p });
    await expect.poll(() => two.built.services.policies.changes.crossProcess(), { timeout: 5_000 }).toBe(true);
    const org = await buildOrg(one);
    const policy = { name: 'default', rules: [], default_action: 'warned', is_default: true };
    const scan = () =>
      call(two, 'POST', '/v1/scans', {
        key: org.admin,
        json: {
          kind: 'content',
          surface: 'user_message',
          content: { type: 'text', text: 'hi' },
          options: { tier: 'fast' },
        },
      });
    expect((await scan()).body.decision.policy_id).toBeNull(); // the miss is now cached in two
    const created = await call(one, 'POST', '/v1/policies', { key: org.admin, json: policy });
    await expect
      .poll(async () => (await scan()).body.decision.policy_id, { timeout: 1_000, interval: 50 })
      .toBe(created.body.id);
    await call(one, 'PUT', `/v1/policies/${created.body.id}`, {
      key: org.admin,
      json: { ...policy, default_action: 'flagged' },
    });
    await expect
      .poll(async () => (await scan()).body.decision.action, { timeout: 1_000, interval: 50 })
      .toBe('flagged');
  });

  it("a new webhook reaches another process's subscription cache at once: its next scan enqueues the event", async () => {
    const p = prefix();
    // A database of their own, no pumps, and a loopback address (nothing listens on port 9): nothing here
    // reaches off this machine even if a delivery were attempted.
    const env = {
      DATABASE_URL: await isolatedDatabase(),
      WEBHOOK_DELIVERY_ENABLED: 'false',
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
    };
    const one = await start({ redisPrefix: p, env });
    const two = await start({ redisPrefix: p, env });
    await expect.poll(() => two.built.services.webhooks.changes.crossProcess(), { timeout: 5_000 }).toBe(true);
    const org = await buildOrg(one);
    const scan = async () =>
      (
        await call(two, 'POST', '/v1/scans', {
          key: org.admin,
          json: {
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text: 'hi' },
            options: { tier: 'fast' },
          },
        })
      ).body.id as string;
    const enqueued = async (scanId: string) =>
      (
        await two.db.query('SELECT webhook_id FROM webhook_deliveries WHERE org_id = $1 AND scan_id = $2', [
          org.orgId,
          scanId,
        ])
      ).rows.map((r) => r.webhook_id);
    expect(await enqueued(await scan())).toEqual([]); // "no webhooks" is now cached in two
    const hook = await call(one, 'POST', '/v1/webhooks', {
      key: org.admin,
      json: { url: 'https://127.0.0.1:9/hook', events: ['scan.allowed'] },
    });
    expect(hook.status).toBe(201);
    await expect.poll(async () => enqueued(await scan()), { timeout: 1_000, interval: 50 }).toEqual([hook.body.id]);
    expect((await call(one, 'DELETE', `/v1/webhooks/${hook.body.id}`, { key: org.admin })).status).toBe(204);
    await expect.poll(async () => enqueued(await scan()), { timeout: 1_000, interval: 50 }).toEqual([]);
  });

  it('rate limits are shared across processes', async () => {
    const p = prefix();
    const env = { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '3600' };
    const one = await start({ redisPrefix: p, env });
    const two = await start({ redisPrefix: p, env });
    const org = await buildOrg(one);
    const statuses = [];
    for (const app of [one, two, one, two])
      statuses.push((await call(app, 'GET', '/v1/me', { key: org.admin })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('without Redis', () => {
  it('the auth cache lives at most 1 s, so a revocation elsewhere lands within it', async () => {
    const one = await start();
    const two = await start();
    expect(two.config.AUTH_CACHE_TTL_MS).toBe(1_000);
    const org = await buildOrg(one);
    const k = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
    expect((await call(two, 'GET', '/v1/me', { key: k.secret })).status).toBe(200);
    expect((await call(one, 'POST', `/v1/api-keys/${k.key.id}:revoke`, { key: org.admin })).status).toBe(204);
    // The revoking process itself forgets at once.
    expect((await call(one, 'GET', '/v1/me', { key: k.secret })).status).toBe(401);
    await expect
      .poll(async () => (await call(two, 'GET', '/v1/me', { key: k.secret })).status, { timeout: 1_200, interval: 50 })
      .toBe(401);
  });
});

describe('without Redis, policies', () => {
  it('a cached policy lives at most 1 s, so a change elsewhere decides scans within it (the TTL says 30 s)', async () => {
    const one = await start();
    const two = await start();
    expect(two.config.POLICY_CACHE_TTL_MS).toBe(30_000);
    const org = await buildOrg(one);
    const scan = () =>
      call(two, 'POST', '/v1/scans', {
        key: org.admin,
        json: {
          kind: 'content',
          surface: 'user_message',
          content: { type: 'text', text: 'hi' },
          options: { tier: 'fast' },
        },
      });
    expect((await scan()).body.decision.policy_id).toBeNull(); // the miss is now cached in two
    const created = await call(one, 'POST', '/v1/policies', {
      key: org.admin,
      json: { name: 'd', rules: [], default_action: 'warned', is_default: true },
    });
    await expect
      .poll(async () => (await scan()).body.decision.policy_id, { timeout: 1_200, interval: 50 })
      .toBe(created.body.id);
  });
});

describe('with Redis configured but unreachable', () => {
  const down = { redisPrefix: 'unused:', redisDown: true, env: { REDIS_URL: 'redis://127.0.0.1:1' } };

  it('serves (limits count per process) and keeps revocation within 1 s by shortening the auth cache', async () => {
    const one = await start(down);
    const two = await start(down);
    expect(two.config.AUTH_CACHE_TTL_MS).toBe(30_000);
    expect(two.built.services.revocations.crossProcess()).toBe(false);
    const org = await buildOrg(one);
    const k = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
    const first = await call(two, 'GET', '/v1/me', { key: k.secret });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBeTruthy();
    expect((await call(one, 'POST', `/v1/api-keys/${k.key.id}:revoke`, { key: org.admin })).status).toBe(204);
    await expect
      .poll(async () => (await call(two, 'GET', '/v1/me', { key: k.secret })).status, { timeout: 1_200, interval: 50 })
      .toBe(401);
  });
});
