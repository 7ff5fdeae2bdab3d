import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildOrg, call, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT_BYTES: '2048' } });
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

const keyCount = async (orgId: string) =>
  (await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [orgId])).rows[0].n as number;

describe('health', () => {
  it.each(['/healthz', '/health'])('%s answers {status: ok} without auth', async (path) => {
    const r = await call(app, 'GET', path);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
  it('/readyz checks the database', async () => {
    expect((await call(app, 'GET', '/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });
  it('a stale credential does not break a public route', async () => {
    expect((await call(app, 'GET', '/healthz', { key: 'sk_live_bogus' })).status).toBe(200);
  });
});

describe('problem+json for every error', () => {
  it('404 for an unknown route, with or without auth', async () => {
    expectProblem(await call(app, 'GET', '/v1/nope'), 404, 'request.route_not_found');
    const r = await call(app, 'GET', '/v1/nope', { key: org.admin });
    expectProblem(r, 404, 'request.route_not_found');
    expect(r.body.instance).toBe('/v1/nope');
  });
  it('405 with Allow for a known path and the wrong method', async () => {
    const r = await call(app, 'DELETE', '/v1/api-keys', { key: org.admin });
    expectProblem(r, 405, 'request.method_not_allowed');
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(
      (await call(app, 'GET', '/v1/api-keys/ak_01M808QC4BEWC3KY6QSW94ETYF:rotate', { key: org.admin })).status,
    ).toBe(405);
  });
  it('400 for malformed JSON', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', { key: org.admin, raw: '{"name": "a",' }),
      400,
      'request.invalid_json',
    );
  });
  it('415 for a non-JSON content type', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        raw: 'name=a',
        contentType: 'application/x-www-form-urlencoded',
      }),
      415,
      'request.unsupported_media_type',
    );
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', { key: org.admin, raw: '{}', contentType: 'text/plain' }),
      415,
      'request.unsupported_media_type',
    );
  });
  it('413 over the body limit', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', { key: org.admin, json: { name: 'x'.repeat(5000), scopes: ['admin'] } }),
      413,
      'request.body_too_large',
    );
  });
  it('400 for a malformed percent-encoding in the path', async () => {
    expectProblem(await call(app, 'GET', '/v1/api-keys/%E0%A4%A', { key: org.admin }), 400, 'request.malformed');
  });
  it('auth errors come before body errors', async () => {
    expectProblem(await call(app, 'POST', '/v1/api-keys', { raw: '{oops' }), 401, 'auth.unauthenticated');
  });
  it('never leaks a stack or SQL', async () => {
    const r = await call(app, 'POST', '/v1/api-keys', {
      key: org.admin,
      raw: '{"name": "\u0000", "scopes": ["admin"]}',
    });
    expect(r.status).toBeLessThan(500);
    expect(r.text).not.toMatch(/at .*\.ts:\d+|SELECT|INSERT|postgres/i);
  });
});

describe('X-Request-Id', () => {
  it('echoes a sane client value', async () => {
    const r = await call(app, 'GET', '/healthz', { headers: { 'x-request-id': 'client-abc_123.4:5' } });
    expect(r.headers.get('x-request-id')).toBe('client-abc_123.4:5');
  });
  it.each(['has spaces in it', 'x'.repeat(129), 'semi;colon', '<script>'])(
    'replaces %j with a generated id',
    async (v) => {
      const r = await call(app, 'GET', '/healthz', { headers: { 'x-request-id': v } });
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    },
  );
  it('is on errors too, and in the problem body', async () => {
    const r = await call(app, 'GET', '/v1/nope', { headers: { 'x-request-id': 'trace-1' } });
    expect(r.headers.get('x-request-id')).toBe('trace-1');
    expect(r.body.request_id).toBe('trace-1');
  });
});

describe('Service-Api-Version', () => {
  it('missing → latest, echoed', async () => {
    expect((await call(app, 'GET', '/healthz')).headers.get('service-api-version')).toBe('2026-11-01');
  });
  it('a supported or later date is accepted and resolves to the newest revision on or before it', async () => {
    for (const v of ['2026-11-01', '2027-03-15', '2099-12-31']) {
      const r = await call(app, 'GET', '/v1/me', { key: org.admin, headers: { 'service-api-version': v } });
      expect(r.status).toBe(200);
      expect(r.headers.get('service-api-version')).toBe('2026-11-01');
    }
  });
  it.each(['2026-13-01', '2026-02-30', '20261101', 'latest', '2026-11-1'])('malformed %s → 400', async (v) => {
    expectProblem(
      await call(app, 'GET', '/v1/me', { key: org.admin, headers: { 'service-api-version': v } }),
      400,
      'api_version.invalid',
    );
  });
  it('a date before the first revision → 400', async () => {
    expectProblem(
      await call(app, 'GET', '/v1/me', { key: org.admin, headers: { 'service-api-version': '2020-01-01' } }),
      400,
      'api_version.unsupported',
    );
  });
});

describe('rate limits', () => {
  it('RateLimit-* on every response and 429 + Retry-After over the limit, per key', async () => {
    const limited = await startTestApp({
      env: { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' },
    });
    try {
      const o = await buildOrg(limited);
      const other = await buildOrg(limited);
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push(await call(limited, 'GET', '/v1/me', { key: o.admin }));
      expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(seen.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
      for (const r of seen) {
        expect(r.headers.get('ratelimit-limit')).toBe('3');
        expect(r.headers.get('ratelimit-policy')).toBe('3;w=3600');
        expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      }
      expectProblem(seen[3]!, 429, 'rate_limit.exceeded');
      expect(Number(seen[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
      // another key has its own budget
      expect((await call(limited, 'GET', '/v1/me', { key: other.admin })).status).toBe(200);
      // requests without a valid key are limited per client address
      const anon = [];
      for (let i = 0; i < 3; i++) anon.push((await call(limited, 'GET', '/v1/detectors')).status);
      expect(anon).toEqual([401, 401, 429]);
    } finally {
      await limited.close();
    }
  });

  it('probes (/healthz, /health, /readyz, /metrics) are never limited and spend no budget; other paths still are', async () => {
    const token = 'probe-metrics-token-0123456789';
    // A stopped clock: the fixed window cannot roll over mid-test and refill the budget.
    const limited = await startTestApp({
      clock: new ManualClock('2026-03-01T12:00:30.000Z'),
      env: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '3', METRICS_ENABLED: 'true', METRICS_TOKEN: token },
    });
    try {
      const probes = [];
      for (let i = 0; i < 5; i++) {
        for (const path of ['/healthz', '/health', '/readyz']) probes.push(await call(limited, 'GET', path));
        probes.push(await call(limited, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } }));
      }
      expect(probes.map((r) => r.status)).toEqual(probes.map(() => 200));
      // Not limited, so no RateLimit-* headers: they would describe a quota the probe does not draw from.
      for (const r of probes) expect(r.headers.get('ratelimit-limit')).toBeNull();
      expectProblem(await call(limited, 'GET', '/metrics'), 401, 'metrics.unauthenticated');
      expectProblem(await call(limited, 'POST', '/healthz'), 405, 'request.method_not_allowed');

      // The address's whole budget is still there for the API, and spent as before.
      const api = [];
      for (let i = 0; i < 4; i++) api.push(await call(limited, 'GET', '/v1/me'));
      expect(api.map((r) => r.status)).toEqual([401, 401, 401, 429]);
      expect(api.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
      expectProblem(await call(limited, 'GET', '/no-such-path'), 429, 'rate_limit.exceeded');
      // Over its limit, the address still gets its probes answered.
      expect((await call(limited, 'GET', '/healthz')).status).toBe(200);
      expect((await call(limited, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('Idempotency-Key', () => {
  const body = { name: 'idem', scopes: ['scans:read'] };

  it('replays the original status and body for the same request, executing once', async () => {
    const o = await buildOrg(app);
    const before = await keyCount(o.orgId);
    const first = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: body,
      headers: { 'idempotency-key': 'k-1' },
    });
    const second = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: body,
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(await keyCount(o.orgId)).toBe(before + 1);
  });

  // Records stored in clear predate the principal binding, so they are never replayed: see
  // idempotency-principal.test.ts.
  it('stores the replay sealed (never the secret in clear)', async () => {
    const o = await buildOrg(app);
    const first = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: body,
      headers: { 'idempotency-key': 'k-sealed' },
    });
    const stored = await app.db.query('SELECT response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2', [
      o.orgId,
      'k-sealed',
    ]);
    expect(stored.rows[0].response_body.includes(Buffer.from(first.body.secret))).toBe(false);
  });

  it('409 idempotency.key_reused for a different body or another route', async () => {
    const o = await buildOrg(app);
    await call(app, 'POST', '/v1/api-keys', { key: o.admin, json: body, headers: { 'idempotency-key': 'k-2' } });
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', {
        key: o.admin,
        json: { ...body, name: 'other' },
        headers: { 'idempotency-key': 'k-2' },
      }),
      409,
      'idempotency.key_reused',
    );
    expectProblem(
      await call(app, 'POST', `/v1/api-keys/${o.adminId}:rotate`, {
        key: o.admin,
        headers: { 'idempotency-key': 'k-2' },
      }),
      409,
      'idempotency.key_reused',
    );
  });

  it('replays errors below 500 too', async () => {
    const o = await buildOrg(app);
    const a = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: { name: '' },
      headers: { 'idempotency-key': 'bad-1' },
    });
    const b = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: { name: '' },
      headers: { 'idempotency-key': 'bad-1' },
    });
    expect(a.status).toBe(400);
    expect(b.status).toBe(400);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('keys are per organization', async () => {
    const a = await buildOrg(app);
    const b = await buildOrg(app);
    const ra = await call(app, 'POST', '/v1/api-keys', {
      key: a.admin,
      json: body,
      headers: { 'idempotency-key': 'shared' },
    });
    const rb = await call(app, 'POST', '/v1/api-keys', {
      key: b.admin,
      json: { ...body, name: 'b' },
      headers: { 'idempotency-key': 'shared' },
    });
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.body.name).toBe('b');
  });

  it('over 255 characters → 400; exactly 255 is fine', async () => {
    expectProblem(
      await call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        json: body,
        headers: { 'idempotency-key': 'x'.repeat(256) },
      }),
      400,
      'idempotency.key_invalid',
    );
    expect(
      (
        await call(app, 'POST', '/v1/api-keys', {
          key: org.admin,
          json: body,
          headers: { 'idempotency-key': 'y'.repeat(255) },
        })
      ).status,
    ).toBe(201);
  });

  it('concurrent requests with one key execute once', async () => {
    const o = await buildOrg(app);
    const before = await keyCount(o.orgId);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(app, 'POST', '/v1/api-keys', { key: o.admin, json: body, headers: { 'idempotency-key': 'race' } }),
      ),
    );
    expect(await keyCount(o.orgId)).toBe(before + 1);
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    for (const r of replies.filter((x) => x.status === 409))
      expect(r.body.code).toBe('idempotency.request_in_progress');
    const ids = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
  });

  it('is retained 24 h: an expired record no longer replays', async () => {
    const o = await buildOrg(app);
    const first = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: body,
      headers: { 'idempotency-key': 'old' },
    });
    const { rows } = await app.db.query(
      'SELECT expires_at, created_at FROM idempotency_keys WHERE org_id = $1 AND key = $2',
      [o.orgId, 'old'],
    );
    expect(rows[0].expires_at.getTime() - rows[0].created_at.getTime()).toBe(24 * 3_600_000);
    await app.db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE org_id = $1 AND key = $2`,
      [o.orgId, 'old'],
    );
    const again = await call(app, 'POST', '/v1/api-keys', {
      key: o.admin,
      json: body,
      headers: { 'idempotency-key': 'old' },
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });
});

describe('NUL characters PostgreSQL cannot store', () => {
  it('are refused in ordinary bodies with a 400 naming the field, never a 500', async () => {
    const app = await startTestApp();
    try {
      const org = await buildOrg(app);
      const r = await call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        json: { name: 'a\u0000b', scopes: ['scans:read'] },
      });
      expectProblem(r, 400, 'request.validation_failed');
      expect(r.body.errors).toEqual([{ path: 'name', message: 'must not contain the NUL character (U+0000)' }]);
      // A literal backslash-u-0000 in text is not a NUL.
      const ok = await call(app, 'POST', '/v1/api-keys', {
        key: org.admin,
        json: { name: 'literal \\u0000 text', scopes: ['scans:read'] },
      });
      expect(ok.status).toBe(201);
      expect(ok.body.name).toBe('literal \\u0000 text');
    } finally {
      await app.close();
    }
  });
});
