import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

const lines: string[] = [];
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ env: { LOG_LEVEL: 'trace' }, logLines: lines });
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

describe('logs', () => {
  it('carry the request id on every request line and never a secret', async () => {
    const created = await call(app, 'POST', '/v1/api-keys', { key: org.admin, json: { name: 'logged', scopes: ['scans:read'] }, headers: { 'x-request-id': 'log-test-1' } });
    const rotated = await call(app, 'POST', `/v1/api-keys/${created.body.id}:rotate`, { key: org.admin, headers: { 'x-request-id': 'log-test-2' } });
    await call(app, 'GET', '/v1/me', { key: 'sk_live_notarealkeybutsecretlooking000000000000000' });
    const text = lines.join('');
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
    expect(requestLines.length).toBeGreaterThanOrEqual(3);
    for (const l of requestLines) expect(l.request_id).toBeTruthy();
    expect(requestLines.map((l) => l.request_id)).toEqual(expect.arrayContaining(['log-test-1', 'log-test-2']));
    for (const secret of [org.admin, created.body.secret, rotated.body.secret, 'sk_live_notarealkeybutsecretlooking']) {
      expect(text).not.toContain(secret);
    }
  });
});
