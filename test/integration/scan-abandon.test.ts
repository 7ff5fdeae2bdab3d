import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

/**
 * An abandoned scan stops costing model time (issue 36): a client that closes its connection before
 * the answer calls the scan off — its waiting model work is dropped at once, nothing is stored, and an
 * Idempotency-Key is released so a retry runs afresh. And a key's scanned characters are budgeted.
 */

const scanBody = (text: string, tier = 'accurate') =>
  JSON.stringify({ kind: 'content', surface: 'user_message', content: { type: 'text', text }, options: { tier } });

/** Sends a scan and closes the connection once `ready()` says the model pool holds its work. */
async function sendAndHangUp(app: TestApp, key: string, body: string, idempotencyKey: string, ready: () => boolean) {
  const url = new URL(app.baseUrl);
  const req = http.request({
    host: url.hostname,
    port: url.port,
    path: '/v1/scans',
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'idempotency-key': idempotencyKey,
    },
  });
  req.on('error', () => undefined);
  req.end(body);
  await expect.poll(ready, { timeout: 10_000, interval: 5 }).toBe(true);
  req.destroy();
}

describe('a scan whose client goes away', () => {
  let app: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    app = await startTestApp({
      env: { WORKER_THREADS: '1', SCAN_DEADLINE_MS: '120000', SCAN_MAX_TEXT_CHARS: '500000', RESULT_CACHE_BYTES: '0' },
    });
    org = await buildOrg(app, 'Abandon');
  });
  afterAll(async () => app?.close());

  it('is called off: its waiting model work is dropped at once, nothing is stored, its Idempotency-Key is free', async () => {
    const pool = app.scanning.dispatcher!;
    /** Model requests the pool dropped because their scan was called off (cf_pool_rejections_total). */
    const cancelled = async () =>
      (await app.built.services.metrics.poolRejections.get()).values.find((v) => v.labels.reason === 'cancelled')
        ?.value ?? 0;
    // ~300,000 characters at the accurate tier: seconds of inference for one thread
    const long = 'A long and harmless paragraph about the garden, the weather and the week ahead. '.repeat(3_700);
    await sendAndHangUp(app, org.admin, scanBody(long), 'abandoned-1', () => pool.queuedPieces > 50);
    // the slices still waiting are dropped when the connection closes, not run for nobody
    await expect.poll(() => pool.queuedPieces, { timeout: 1_000, interval: 5 }).toBe(0);
    await expect.poll(cancelled).toBeGreaterThan(0);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId]);
    expect(rows[0].n).toBe(0);
    // the key was released (499, never delivered): the same request runs afresh
    const retry = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: JSON.parse(scanBody('hello there', 'fast')),
      headers: { 'idempotency-key': 'abandoned-2' },
    });
    expect(retry.status).toBe(201);
    await sendAndHangUp(app, org.admin, scanBody(long), 'abandoned-3', () => pool.queuedPieces > 50);
    await expect.poll(() => pool.queuedPieces, { timeout: 1_000, interval: 5 }).toBe(0);
    // once the abandoned request has unwound (its 499 releases the key), the key runs a new request:
    // not a replay, not "in progress", not "reused with another body"
    const again = () =>
      call(app, 'POST', '/v1/scans', {
        key: org.admin,
        json: JSON.parse(scanBody('A short one this time.', 'fast')),
        headers: { 'idempotency-key': 'abandoned-3' },
      });
    let last = await again();
    // (while the abandoned one still holds the key, another body reads as reused: wait for its release)
    const busy = ['idempotency.request_in_progress', 'idempotency.key_reused'];
    for (let i = 0; i < 100 && busy.includes(last.body?.code); i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = await again();
    }
    expect([last.status, last.body?.code]).toEqual([201, undefined]);
    expect(last.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('characters scanned per key (RATE_LIMIT_SCAN_CHARS)', () => {
  let app: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    app = await startTestApp({
      env: { RATE_LIMIT_SCAN_CHARS: '1000', SCAN_MAX_TEXT_CHARS: '1000', RATE_LIMIT_WINDOW_SECONDS: '3600' },
    });
    org = await buildOrg(app, 'Budget');
  });
  afterAll(async () => app?.close());

  const scan = (key: string, chars: number) =>
    call(app, 'POST', '/v1/scans', { key, json: JSON.parse(scanBody('x'.repeat(chars), 'fast')) });

  it('a scan that would pass the budget is 429 rate_limit.characters_exceeded and costs nothing; other keys keep theirs', async () => {
    expect((await scan(org.admin, 600)).status).toBe(201);
    const refused = await scan(org.admin, 600);
    expectProblem(refused, 429, 'rate_limit.characters_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // the refused 600 were given back: 400 more still fit
    expect((await scan(org.admin, 400)).status).toBe(201);
    expectProblem(await scan(org.admin, 1), 429, 'rate_limit.characters_exceeded');
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    expect((await scan(secret, 1000)).status).toBe(201);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId]);
    expect(rows[0].n).toBe(3);
  });
});
