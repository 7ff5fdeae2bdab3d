import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_TOKEN_FAILURES } from '../../api/routes/health/router.ts';
import { ManualClock } from '../../lib/clock.ts';
import {
  appsClosedAfterEach,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type Reply,
  type TestApp,
} from '../support/harness.ts';

const TOKEN = 'metrics-token-0123456789';
let app: TestApp;
const start = appsClosedAfterEach();

beforeAll(async () => {
  app = await startTestApp({ env: { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN, WORKER_THREADS: '1' } });
});
afterAll(async () => app?.close());

describe('/metrics', () => {
  it('needs the metrics token when one is set (an API key is not enough)', async () => {
    const org = await buildOrg(app);
    expectProblem(await call(app, 'GET', '/metrics'), 401, 'metrics.unauthenticated');
    expectProblem(await call(app, 'GET', '/metrics', { key: org.admin }), 401, 'metrics.unauthenticated');
    expectProblem(
      await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } }),
      401,
      'metrics.unauthenticated',
    );
  });

  it('reports scan, detector, pool, writer and decision metrics after a scan', async () => {
    const org = await buildOrg(app);
    const scan = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: {
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: 'card 4111 1111 1111 1111' },
        options: { tier: 'accurate' },
      },
    });
    expect(scan.status).toBe(201);
    const r = await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    for (const name of [
      'http_request_duration_seconds_bucket{le="0.005",method="POST",route="/v1/scans",status="201"}',
      'cf_scan_duration_seconds_count{tier="accurate"} 1',
      'cf_detector_duration_seconds_count{detector="pii",tier="accurate"} 1',
      'cf_scan_decisions_total{action="flagged",surface="user_message"} 1',
      'cf_pool_queue_depth 0',
      'cf_pool_wait_seconds_count',
      'cf_scan_write_batch_rows_count',
    ])
      expect(r.text, name).toContain(name);
  });

  it("counts the auto tier's cascade: an ordinary prompt is decided without the sentence encoder", async () => {
    const org = await buildOrg(app);
    const metric = 'cf_detector_cascade_total{detector="prompt_injection",stage="early"}';
    const count = async (): Promise<number> => {
      const r = await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      const line = r.text.split('\n').find((l) => l.startsWith(metric));
      return line ? Number(line.slice(metric.length)) : 0;
    };
    const before = await count();
    const scan = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: {
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: 'What time does the museum open on Sundays?' },
        options: { tier: 'auto', detectors: ['prompt_injection'] },
      },
    });
    expect(scan.status).toBe(201);
    expect(await count()).toBe(before + 1);
  });
});

describe('/metrics token guesses', () => {
  const { limit, windowSeconds } = METRICS_TOKEN_FAILURES;
  // TRUST_PROXY: X-Forwarded-For names the client address, so one test plays several clients.
  const env = { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN, TRUST_PROXY: 'true' };
  const scrape = (a: TestApp, from: string, token = TOKEN): Promise<Reply> =>
    call(a, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from } });

  it('refuses an address every attempt once it sent too many wrong tokens, until the window ends; scrapes spend nothing', async () => {
    // A stopped clock: the fixed window rolls over only when the test moves it.
    const clock = new ManualClock('2026-03-01T12:00:30.000Z');
    const a = await start({ clock, env });
    for (let i = 0; i < limit + 5; i++) expect((await scrape(a, '10.0.0.1')).status).toBe(200);
    for (let i = 0; i < limit; i++)
      expectProblem(await scrape(a, '10.0.0.2', `${TOKEN}${i}`), 401, 'metrics.unauthenticated');
    const refused = await scrape(a, '10.0.0.2', `${TOKEN}x`);
    expectProblem(refused, 429, 'rate_limit.exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBe(windowSeconds - 30);
    // The right token too: answering it would tell the guesser which guess was right.
    expectProblem(await scrape(a, '10.0.0.2'), 429, 'rate_limit.exceeded');
    // Another address's scrapes and guesses are its own.
    expect((await scrape(a, '10.0.0.1')).status).toBe(200);
    expectProblem(await scrape(a, '10.0.0.3', 'wrong'), 401, 'metrics.unauthenticated');
    clock.advance((windowSeconds - 30) * 1000);
    expect((await scrape(a, '10.0.0.2')).status).toBe(200);
  });

  it('counts the wrong tokens of every process together with Redis', async () => {
    const clock = new ManualClock('2026-03-01T12:00:30.000Z');
    const redisPrefix = `cf_test_${randomBytes(4).toString('hex')}:`;
    const one = await start({ clock, env, redisPrefix });
    const two = await start({ clock, env, redisPrefix });
    for (let i = 0; i < limit; i++) {
      const a = i % 2 ? one : two;
      expectProblem(await scrape(a, '10.0.0.4', 'wrong'), 401, 'metrics.unauthenticated');
    }
    expectProblem(await scrape(one, '10.0.0.4', 'wrong'), 429, 'rate_limit.exceeded');
    expectProblem(await scrape(two, '10.0.0.4'), 429, 'rate_limit.exceeded');
    expect((await scrape(two, '10.0.0.5')).status).toBe(200);
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('answers loopback clients only, never a request a proxy forwarded (TRUST_PROXY or not)', async () => {
    for (const trustProxy of ['false', 'true']) {
      const a = await start({ env: { METRICS_ENABLED: 'true', TRUST_PROXY: trustProxy } });
      const direct = await call(a, 'GET', '/metrics');
      expect(direct.status).toBe(200);
      expect(direct.text).toContain('http_request_duration_seconds');
      const forwarded: Record<string, string>[] = [
        { 'x-forwarded-for': '127.0.0.1' },
        { forwarded: 'for=127.0.0.1' },
        { 'x-real-ip': '::1' },
      ];
      for (const headers of forwarded)
        expectProblem(await call(a, 'GET', '/metrics', { headers }), 403, 'metrics.forbidden');
    }
  });
});
