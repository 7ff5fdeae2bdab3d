/**
 * The analytics answers' shapes on hand-made workloads: bins on UTC boundaries, windows answered
 * exactly and echoed (latency: widened to whole bins), zero bins in the time series but not in latency, the prior-period delta,
 * orderings and limits, and tenancy and scope. Its own database: the rollup job spans organizations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  isolatedDatabase,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { rollUp, storeScans, type ScanSpec } from './analytics-fixture.ts';

const ROUTES = ['summary', 'timeseries?bucket=1h&', 'surfaces', 'detectors', 'latency?bucket=15m&'];
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { DATABASE_URL: await isolatedDatabase() } });
});
afterAll(async () => app?.close());

const get = async (key: string, path: string, since: string, until: string) => {
  const sep = path.includes('?') ? '' : '?';
  const r = await call(app, 'GET', `/v1/analytics/${path}${sep}since=${since}&until=${until}`, { key });
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const at = (iso: string, extra: Omit<ScanSpec, 'at'> = {}): ScanSpec => ({ at: new Date(iso), ...extra });
const times = (n: number, spec: ScanSpec): ScanSpec[] => Array.from({ length: n }, () => spec);

describe('bins and windows', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await buildOrg(app, 'Analytics bins');
    await storeScans(app.db, org.orgId, [
      at('2025-05-01T00:00:00.000Z', { action: 'blocked', latencyMs: 10 }),
      at('2025-05-01T00:14:59.999Z', { action: 'flagged', latencyMs: 20 }),
      at('2025-05-01T00:15:00.000Z', { observed: 'warned', latencyMs: 30 }),
      at('2025-05-01T02:59:59.999Z', { latencyMs: 40 }),
      at('2025-05-01T23:59:59.999Z', { action: 'blocked', latencyMs: 50 }),
      at('2025-05-02T00:00:00.000Z', { latencyMs: 60 }),
    ]);
    await rollUp(app);
  });

  it('15m bins start on UTC quarter hours; the unaligned window is answered exactly and echoed; empty bins are zeros', async () => {
    const body = await get(org.admin, 'timeseries?bucket=15m&', '2025-05-01T00:07:00Z', '2025-05-01T00:31:00%2B00:00');
    expect(body.window).toEqual({ since: '2025-05-01T00:07:00.000Z', until: '2025-05-01T00:31:00.000Z' });
    expect(body.bucket).toBe('15m');
    // the 00:00 bin counts its part from 00:07 on: the blocked scan at 00:00 is outside the window
    expect(body.points).toEqual([
      { t: '2025-05-01T00:00:00.000Z', allowed: 0, flagged: 1, warned: 0, blocked: 0 },
      { t: '2025-05-01T00:15:00.000Z', allowed: 0, flagged: 0, warned: 1, blocked: 0 },
      { t: '2025-05-01T00:30:00.000Z', allowed: 0, flagged: 0, warned: 0, blocked: 0 },
    ]);
  });

  it('1h and 1d bins start on UTC hours and days, whatever offset the window was given in', async () => {
    const hourly = await get(org.admin, 'timeseries?bucket=1h&', '2025-05-01T02:30:00%2B02:00', '2025-05-01T03:00:01Z');
    expect(hourly.window).toEqual({ since: '2025-05-01T00:30:00.000Z', until: '2025-05-01T03:00:01.000Z' });
    const sum = (p: Record<string, number>) => p.allowed! + p.flagged! + p.warned! + p.blocked!;
    expect(hourly.points.map((p: Record<string, number> & { t: string }) => [p.t, sum(p)])).toEqual([
      ['2025-05-01T00:00:00.000Z', 0],
      ['2025-05-01T01:00:00.000Z', 0],
      ['2025-05-01T02:00:00.000Z', 1],
      ['2025-05-01T03:00:00.000Z', 0],
    ]);
    const daily = await get(
      org.admin,
      'timeseries?bucket=1d&',
      '2025-04-30T20:00:00-05:00',
      '2025-05-02T00:00:00.001Z',
    );
    expect(daily.window).toEqual({ since: '2025-05-01T01:00:00.000Z', until: '2025-05-02T00:00:00.001Z' });
    expect(daily.points).toEqual([
      { t: '2025-05-01T00:00:00.000Z', allowed: 1, flagged: 0, warned: 0, blocked: 1 },
      { t: '2025-05-02T00:00:00.000Z', allowed: 1, flagged: 0, warned: 0, blocked: 0 },
    ]);
  });

  it('an aligned window is taken as is; an unaligned one exactly: start inclusive, end exclusive', async () => {
    const s = await get(org.admin, 'summary', '2025-05-01T00:15:00Z', '2025-05-01T03:00:00Z');
    expect(s.window).toEqual({ since: '2025-05-01T00:15:00.000Z', until: '2025-05-01T03:00:00.000Z' });
    expect(s).toMatchObject({ total: 2, allowed: 1, flagged: 0, warned: 1, blocked: 0 });
    const [since, until] = ['2025-05-01T00:14:59.999Z', '2025-05-01T02:59:59.999Z'];
    const exact = await get(org.admin, 'summary', since, until);
    expect(exact).toMatchObject({ window: { since, until }, total: 2, allowed: 0, flagged: 1, warned: 1 });
    expect((await get(org.admin, 'surfaces', since, until)).items).toEqual([{ surface: 'user_message', count: 2 }]);
    // a window after every scan of its buckets counts none of them; one inside a bucket, only its own
    expect(await get(org.admin, 'summary', '2025-05-01T00:00:00.001Z', '2025-05-01T00:14:59.999Z')).toMatchObject({
      total: 0,
    });
    expect(await get(org.admin, 'summary', '2025-05-01T23:59:59.999Z', '2025-05-02T00:00:00.001Z')).toMatchObject({
      total: 2,
      blocked: 1,
    });
  });

  it('latency leaves out bins without scans and counts each bin', async () => {
    const body = await get(org.admin, 'latency?bucket=1h&', '2025-05-01T00:00:00Z', '2025-05-01T05:00:00Z');
    expect(body.window).toEqual({ since: '2025-05-01T00:00:00.000Z', until: '2025-05-01T05:00:00.000Z' });
    expect(body.points.map((p: { t: string; count: number }) => [p.t, p.count])).toEqual([
      ['2025-05-01T00:00:00.000Z', 3],
      ['2025-05-01T02:00:00.000Z', 1],
    ]);
    // one value: every quantile is it (clamped to the exact extremes)
    expect(body.points[1]).toMatchObject({ p50_ms: 40, p95_ms: 40, p99_ms: 40 });
    expect(Math.abs(body.points[0].p50_ms - 20)).toBeLessThanOrEqual(0.2);
    const none = await get(org.admin, 'latency?bucket=1d&', '2025-06-01T00:00:00Z', '2025-06-03T00:00:00Z');
    expect(none.points).toEqual([]);
  });
});

describe('prior period delta', () => {
  it('is null against an empty prior window and exact otherwise', async () => {
    const org = await buildOrg(app, 'Analytics delta');
    await storeScans(app.db, org.orgId, [
      // prior window [2025-05-09, 2025-05-10): 4 scans, 2 blocked
      ...times(2, at('2025-05-09T03:00:00Z', { action: 'blocked' })),
      ...times(2, at('2025-05-09T23:59:59.999Z')),
      // current window [2025-05-10, 2025-05-11): 5 scans, 1 blocked (observe mode counts what it would do)
      at('2025-05-10T00:00:00Z', { observed: 'blocked' }),
      ...times(4, at('2025-05-10T12:00:00Z', { action: 'flagged' })),
    ]);
    await rollUp(app);
    const current = await get(org.admin, 'summary', '2025-05-10T00:00:00Z', '2025-05-11T00:00:00Z');
    expect(current).toEqual({
      window: { since: '2025-05-10T00:00:00.000Z', until: '2025-05-11T00:00:00.000Z' },
      total: 5,
      allowed: 0,
      flagged: 4,
      warned: 0,
      blocked: 1,
      prior_period_delta: { total_pct: 25, blocked_pct: -50 },
    });
    const first = await get(org.admin, 'summary', '2025-05-09T00:00:00Z', '2025-05-10T00:00:00Z');
    expect(first.prior_period_delta).toEqual({ total_pct: null, blocked_pct: null });
    // a drop to nothing is -100
    const later = await get(org.admin, 'summary', '2025-05-11T00:00:00Z', '2025-05-12T00:00:00Z');
    expect(later).toMatchObject({ total: 0, prior_period_delta: { total_pct: -100, blocked_pct: -100 } });
    // the prior window has the requested window's length: 00:00–00:13, prior 23:47–00:00
    // (2 scans, none blocked: the blocked change alone is null)
    const short = await get(org.admin, 'summary', '2025-05-10T00:00:00Z', '2025-05-10T00:13:00Z');
    expect(short).toMatchObject({ total: 1, blocked: 1, prior_period_delta: { total_pct: -50, blocked_pct: null } });
    const rounded = await get(org.admin, 'summary', '2025-05-09T12:00:00Z', '2025-05-10T12:15:00Z');
    // [05-09 12:00, 05-10 12:15): 2 + 5 = 7, 1 blocked; prior [05-08 11:45, 05-09 12:00): the 03:00 pair, both blocked
    expect(rounded).toMatchObject({ total: 7, prior_period_delta: { total_pct: 250, blocked_pct: -50 } });
  });
});

describe('orderings and limits', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await buildOrg(app, 'Analytics order');
    const t = '2025-05-20T08:00:00Z';
    await storeScans(app.db, org.orgId, [
      ...times(3, at(t, { surface: 'tool_result', detectors: ['pii', 'toxicity'] })),
      ...times(3, at(t, { surface: 'document', detectors: ['sensitive_path', 'prompt_injection'] })),
      ...times(1, at(t, { surface: 'assistant_output', detectors: ['zz_retired', 'a_retired'] })),
      // toxicity ran here and found nothing (the fixture adds an empty finding): not counted
      ...times(2, at(t, { surface: 'user_message' })),
    ]);
    await rollUp(app);
  });
  const window = ['2025-05-20T00:00:00Z', '2025-05-21T00:00:00Z'] as const;

  it('top detectors: count descending, ties by name ascending, with categories (null when unknown); limit respected', async () => {
    const all = await get(org.admin, 'detectors?limit=50&', ...window);
    expect(all.items).toEqual([
      { detector: 'pii', category: 'pii', count: 3 },
      { detector: 'prompt_injection', category: 'prompt_injection', count: 3 },
      { detector: 'sensitive_path', category: 'sensitive_path', count: 3 },
      { detector: 'toxicity', category: 'toxicity', count: 3 },
      { detector: 'a_retired', category: null, count: 1 },
      { detector: 'zz_retired', category: null, count: 1 },
    ]);
    expect(
      (await get(org.admin, 'detectors?limit=2&', ...window)).items.map((i: { detector: string }) => i.detector),
    ).toEqual(['pii', 'prompt_injection']);
    expect((await get(org.admin, 'detectors', ...window)).items).toHaveLength(6);
  });

  it('surfaces: count descending, ties by name ascending, surfaces without traffic left out', async () => {
    expect((await get(org.admin, 'surfaces', ...window)).items).toEqual([
      { surface: 'document', count: 3 },
      { surface: 'tool_result', count: 3 },
      { surface: 'user_message', count: 2 },
      { surface: 'assistant_output', count: 1 },
    ]);
    expect((await get(org.admin, 'surfaces', '2025-05-21T00:00:00Z', '2025-05-22T00:00:00Z')).items).toEqual([]);
  });
});

describe('tenancy and scope', () => {
  it("another organization sees none of an organization's scans, on every route", async () => {
    const a = await buildOrg(app, 'Analytics A');
    const b = await buildOrg(app, 'Analytics B');
    await storeScans(app.db, a.orgId, times(5, at('2025-05-25T10:00:00Z', { action: 'blocked', detectors: ['pii'] })));
    await rollUp(app);
    const window = ['2025-05-25T00:00:00Z', '2025-05-26T00:00:00Z'] as const;
    expect((await get(a.admin, 'summary', ...window)).total).toBe(5);
    expect((await get(a.admin, 'latency?bucket=15m&', ...window)).points).toHaveLength(1);
    const [summary, series, surfaces, detectors, latency] = await Promise.all(
      ROUTES.map((path) => get(b.admin, path, ...window)),
    );
    expect(summary).toMatchObject({ total: 0, allowed: 0, flagged: 0, warned: 0, blocked: 0 });
    expect(
      series.points.every((p: Record<string, unknown>) =>
        Object.values(p)
          .slice(1)
          .every((n) => n === 0),
      ),
    ).toBe(true);
    expect(series.points).toHaveLength(24);
    expect(surfaces.items).toEqual([]);
    expect(detectors.items).toEqual([]);
    expect(latency.points).toEqual([]);
  });

  it('needs analytics:read (403 names it) and a key (401)', async () => {
    const org = await buildOrg(app, 'Analytics scopes');
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:read', 'audit:read'] });
    const { secret: reader } = await buildApiKey(app, org.orgId, { scopes: ['analytics:read'] });
    const q = 'since=2025-05-25T00:00:00Z&until=2025-05-26T00:00:00Z';
    for (const path of ROUTES) {
      const url = `/v1/analytics/${path}${path.includes('?') ? '' : '?'}${q}`;
      const denied = await call(app, 'GET', url, { key: secret });
      expectProblem(denied, 403, 'auth.insufficient_scope');
      expect(denied.body.detail).toContain('analytics:read');
      expect((await call(app, 'GET', url, { key: reader })).status).toBe(200);
      expectProblem(await call(app, 'GET', url), 401, 'auth.unauthenticated');
    }
  });
});
