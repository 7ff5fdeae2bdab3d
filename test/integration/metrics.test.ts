import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem, startTestApp, type TestApp } from '../support/harness.ts';

const TOKEN = 'metrics-token-0123456789';
let app: TestApp;

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
