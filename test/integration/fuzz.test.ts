import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT_BYTES: '4096' } });
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

// Header values a client can actually send: visible latin-1, no leading/trailing blanks.
const headerValue = fc
  .string({ unit: fc.integer({ min: 0x21, max: 0xff }).filter((c) => c < 0x7f || c > 0x9f).map((c) => String.fromCharCode(c)), maxLength: 300 })
  .filter((s) => s.length > 0);

const rawBody = fc.oneof(
  fc.json(),
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.record({ name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), scopes: fc.oneof(fc.array(fc.string()), fc.string()), environment: fc.string(), expires_at: fc.oneof(fc.string(), fc.integer()), no_expiry: fc.anything() }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constant('x'.repeat(5000)),
);

const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constant('ak_01M808QC4BEWC3KY6QSW94ETYF'), fc.constant('ak_')).map(encodeURIComponent);

const request = fc.record({
  target: fc.oneof(
    fc.constant({ method: 'POST', path: '/v1/api-keys' }),
    segment.map((s) => ({ method: 'POST', path: `/v1/api-keys/${s}:rotate` })),
    segment.map((s) => ({ method: 'POST', path: `/v1/api-keys/${s}:revoke` })),
    segment.map((s) => ({ method: 'GET', path: `/v1/api-keys/${s}` })),
    fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 80 })).map(([l, c]) => ({ method: 'GET', path: `/v1/api-keys?limit=${encodeURIComponent(l)}&cursor=${encodeURIComponent(c)}` })),
    fc.constantFrom('PUT', 'PATCH', 'DELETE').map((m) => ({ method: m, path: '/v1/api-keys' })),
  ),
  body: fc.option(rawBody),
  contentType: fc.option(fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/merge-patch+json', 'application/json; charset=latin9'), headerValue)),
  auth: fc.oneof(fc.constant('admin'), fc.constant('none'), headerValue),
  idempotencyKey: fc.option(fc.oneof(headerValue, fc.string({ minLength: 250, maxLength: 300 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'a')))),
  apiVersion: fc.option(fc.oneof(headerValue, fc.constantFrom('2026-11-01', '2026-02-29', '2030-01-01', '1999-01-01'))),
  requestId: fc.option(headerValue),
});

describe('fuzzing the key endpoints', () => {
  it('1,200 malformed requests: always 4xx (or a success), always problem+json on errors, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.auth === 'admin') headers.authorization = `Bearer ${org.admin}`;
        else if (r.auth !== 'none') headers.authorization = r.auth;
        if (r.contentType !== null) headers['content-type'] = r.contentType;
        if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey;
        if (r.apiVersion !== null) headers['service-api-version'] = r.apiVersion;
        if (r.requestId !== null) headers['x-request-id'] = r.requestId;
        const res = await fetch(`${app.baseUrl}${r.target.path}`, {
          method: r.target.method,
          headers,
          body: r.body === null || r.target.method === 'GET' ? undefined : r.body,
        });
        const text = await res.text();
        expect(res.status, text).toBeLessThan(500);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        expect(res.headers.get('ratelimit-limit')).toBeTruthy();
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          const p = JSON.parse(text);
          expect(p.code).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
          expect(p.status).toBe(res.status);
        }
      }),
      { numRuns: 1_200, seed: 20261121 },
    );
  });
});
