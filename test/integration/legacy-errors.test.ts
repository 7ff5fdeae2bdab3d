/**
 * Every legacy error (docs/legacy.md, docs/errors.md "Legacy analysis API"): the body
 * `{error: {code, message, details: {parameter, suggestion}}}`, the status the spec lists, the
 * parameter named; the order of the checks; a fault's fixed 500; the listener is off by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../services/api-keys.ts';
import { buildApiKey, buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectLegacyError, legacy, newAnalysis } from './legacy-fixture.ts';

let app: TestApp;
let org: TestOrg;
let id: number;

beforeAll(async () => {
  app = await startTestApp({ legacy: true, env: { AUTH_CACHE_TTL_MS: '0' } });
  org = await buildOrg(app);
  id = await newAnalysis(app, org);
});
afterAll(async () => app?.close());

const post = (path: string, key: string | null = org.admin, text = 'hello') => legacy(app, path, { key, text });

describe('legacy errors', () => {
  it('401 INVALID_API_KEY: missing, malformed, unknown and revoked keys', async () => {
    const missing = await post(`/v1/analysis/${id}`, null);
    expectLegacyError(missing, 401, 'INVALID_API_KEY', 'Authorization');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const malformed = await legacy(app, `/v1/analysis/${id}`, { text: 'x', headers: { authorization: 'Basic abc' } });
    expectLegacyError(malformed, 401, 'INVALID_API_KEY');
    expectLegacyError(await post(`/v1/analysis/${id}`, 'sk_live_notakey'), 401, 'INVALID_API_KEY');
    const { key, secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    expect((await post(`/v1/analysis/${id}`, secret)).status).toBe(200);
    await revokeApiKey(app.built.services.apiKeys, org.orgId, key.id, {
      id: 'test',
      requestId: null,
      scopes: ['admin'],
    });
    expectLegacyError(await post(`/v1/analysis/${id}`, secret), 401, 'INVALID_API_KEY');
  });

  it('403 ACCESS_DENIED without scans:write (checked before anything about the request)', async () => {
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:read', 'analytics:read'] });
    expectLegacyError(await post(`/v1/analysis/${id}`, secret), 403, 'ACCESS_DENIED');
    expectLegacyError(await post('/v1/analysis/abc?nope=1', secret), 403, 'ACCESS_DENIED');
  });

  it('400 INVALID_PARAMETER: analysis_id not a positive integer', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '01', '1e3', '%20']) {
      expectLegacyError(await post(`/v1/analysis/${bad}`), 400, 'INVALID_PARAMETER', 'analysis_id');
    }
  });

  it('404 ANALYSIS_NOT_FOUND: unknown, too large, deleted, or another organization’s', async () => {
    for (const unknown of [String(id + 1000), '99999999999999999999']) {
      expectLegacyError(await post(`/v1/analysis/${unknown}`), 404, 'ANALYSIS_NOT_FOUND', 'analysis_id');
    }
    const other = await buildOrg(app);
    expectLegacyError(await post(`/v1/analysis/${id}`, other.admin), 404, 'ANALYSIS_NOT_FOUND');
    const gone = await newAnalysis(app, org, 'to delete');
    expect((await call(app, 'DELETE', `/v1/legacy-analyses/${gone}`, { key: org.admin })).status).toBe(204);
    expectLegacyError(await post(`/v1/analysis/${gone}`), 404, 'ANALYSIS_NOT_FOUND');
  });

  it('400 INVALID_PARAMETER for each query parameter, naming it with a suggestion', async () => {
    const cases: [string, string, RegExp?][] = [
      ['verbose=true', 'verbose', /tag, detections, scan_type, capture, long_prompt_injection/],
      ['detections=pii,toxicity', 'detections', /prompt_injection, pii, sensitive_path_detection/],
      ['detections=', 'detections'],
      ['detections=pii,,prompt_injection', 'detections'],
      ['scan_type=both', 'scan_type', /input.*output/],
      ['capture=yes', 'capture'],
      ['long_prompt_injection=maybe', 'long_prompt_injection'],
      ['tag=', 'tag'],
      [`tag=${'x'.repeat(256)}`, 'tag'],
      ['tag=a%00b', 'tag'],
      ['tag=%FF', 'tag'],
      ['tag=a&tag=b', 'tag', /once/],
    ];
    for (const [q, parameter, suggestion] of cases) {
      const r = await post(`/v1/analysis/${id}?${q}`);
      expectLegacyError(r, 400, 'INVALID_PARAMETER', parameter);
      if (suggestion) expect(r.body.error.details.suggestion, q).toMatch(suggestion);
    }
    expect((await post(`/v1/analysis/${id}?tag=${'x'.repeat(255)}`)).status).toBe(200);
  });

  it('400 for the body: other content types, charsets, and an empty body', async () => {
    for (const contentType of ['application/json', 'text/html', 'text/plain; charset=latin1']) {
      const r = await legacy(app, `/v1/analysis/${id}`, { key: org.admin, text: 'hi', contentType });
      expectLegacyError(r, 400, 'INVALID_PARAMETER', 'Content-Type');
      expect(r.body.error.details.suggestion).toContain('text/plain');
    }
    const none = await legacy(app, `/v1/analysis/${id}`, { key: org.admin, text: 'hi', contentType: null });
    expectLegacyError(none, 400, 'INVALID_PARAMETER', 'Content-Type');
    expectLegacyError(await post(`/v1/analysis/${id}`, org.admin, ''), 400, 'EMPTY_CONTENT', 'body');
    const noBody = await legacy(app, `/v1/analysis/${id}`, {
      key: org.admin,
      headers: { 'content-type': 'text/plain' },
    });
    expectLegacyError(noBody, 400, 'EMPTY_CONTENT', 'body');
  });

  it('404 NOT_FOUND for any other path or method', async () => {
    expectLegacyError(await post('/v1/analysis'), 404, 'NOT_FOUND', '');
    expectLegacyError(await post('/v1/scans'), 404, 'NOT_FOUND');
    expectLegacyError(await post(`/v1/analysis/${id}/extra`), 404, 'NOT_FOUND');
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      expectLegacyError(await legacy(app, `/v1/analysis/${id}`, { key: org.admin, method }), 404, 'NOT_FOUND');
    }
  });

  it('500 INTERNAL_ERROR is fixed: no internals reach the client', async () => {
    const engine = app.scanning.engine;
    const scan = engine.scan.bind(engine);
    engine.scan = () => Promise.reject(new Error('connection to 10.0.0.7:5432 failed: password for cf_admin'));
    try {
      const r = await post(`/v1/analysis/${id}`);
      expectLegacyError(r, 500, 'INTERNAL_ERROR', '');
      expect(r.text).not.toMatch(/10\.0\.0\.7|cf_admin|password|stack|Error:/);
      expect(r.body.error.message).toBe('An unexpected error occurred.');
    } finally {
      engine.scan = scan;
    }
  });

  it('the v1 listener does not serve the legacy path', async () => {
    const r = await call(app, 'POST', `/v1/analysis/${id}`, { key: org.admin, raw: 'hi', contentType: 'text/plain' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('request.route_not_found');
  });
});

describe('legacy limits', () => {
  it('429 RATE_LIMITED from the per-key limiter, with Retry-After', async () => {
    const limited = await startTestApp({ legacy: true, env: { RATE_LIMIT_REQUESTS: '2' } });
    try {
      const o = await buildOrg(limited);
      const a = await newAnalysis(limited, o);
      const { secret } = await buildApiKey(limited, o.orgId, { scopes: ['scans:write'] });
      for (let i = 0; i < 2; i++)
        expect((await legacy(limited, `/v1/analysis/${a}`, { key: secret, text: 'x' })).status).toBe(200);
      const r = await legacy(limited, `/v1/analysis/${a}`, { key: secret, text: 'x' });
      expectLegacyError(r, 429, 'RATE_LIMITED', '');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('429 QUOTA_EXCEEDED past the monthly quota, with Retry-After to the month’s end; refusals do not count', async () => {
    const quota = await startTestApp({ legacy: true, env: { LEGACY_MONTHLY_QUOTA: '2' } });
    try {
      const o = await buildOrg(quota);
      const a = await newAnalysis(quota, o);
      const first = await legacy(quota, `/v1/analysis/${a}`, { key: o.admin, text: 'x' });
      expect(first.headers.get('x-quota-limit')).toBe('2');
      expect(first.headers.get('x-quota-remaining')).toBe('1');
      // A bad request is refused before the quota and does not spend it.
      expectLegacyError(
        await legacy(quota, `/v1/analysis/${a}?bad=1`, { key: o.admin, text: 'x' }),
        400,
        'INVALID_PARAMETER',
      );
      expect((await legacy(quota, `/v1/analysis/${a}`, { key: o.admin, text: 'x' })).status).toBe(200);
      const r = await legacy(quota, `/v1/analysis/${a}`, { key: o.admin, text: 'x' });
      expectLegacyError(r, 429, 'QUOTA_EXCEEDED', '');
      const now = new Date();
      const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      expect(Math.abs(Number(r.headers.get('retry-after')) - (monthEnd - now.getTime()) / 1000)).toBeLessThan(5);
      const usage = await call(quota, 'GET', '/v1/legacy-usage', { key: o.admin });
      expect(usage.body).toMatchObject({ limit: 2, used: 2 });
      const { rows } = await quota.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [o.orgId]);
      expect(rows[0].n).toBe(2);
    } finally {
      await quota.close();
    }
  });

  it('the legacy listener is off unless asked for', async () => {
    const plain = await startTestApp();
    try {
      expect(plain.legacyBaseUrl).toBeNull();
      expect(plain.config.LEGACY_PORT).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
