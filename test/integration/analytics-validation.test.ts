/**
 * What the analytics routes refuse: malformed queries (every route, problem+json with the failing
 * paths) and windows longer than their grid's cap (checked on the window as requested: the cap
 * itself passes, a millisecond more is analytics.window_too_wide). No scans needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WINDOW_CAP_DAYS } from '../../services/analytics.ts';
import {
  buildOrg,
  call,
  expectProblem,
  isolatedDatabase,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

const DAY = 86_400_000;
let app: TestApp;
let org: TestOrg;
beforeAll(async () => {
  app = await startTestApp({ env: { DATABASE_URL: await isolatedDatabase() } });
  org = await buildOrg(app, 'Analytics validation');
});
afterAll(async () => app?.close());

const get = (pathAndQuery: string) => call(app, 'GET', `/v1/analytics/${pathAndQuery}`, { key: org.admin });
const invalid = async (pathAndQuery: string, paths: string[]) => {
  const r = await get(pathAndQuery);
  expectProblem(r, 400, 'request.validation_failed');
  expect(r.body.errors.map((e: { path: string }) => e.path).sort(), pathAndQuery).toEqual(paths.sort());
};
const W = 'since=2025-01-01T00:00:00Z&until=2025-01-02T00:00:00Z';

describe('query validation', () => {
  it('since and until are required RFC 3339 instants with an offset, since before until', async () => {
    for (const route of ['summary', 'surfaces', 'detectors', 'timeseries?bucket=1h&', 'latency?bucket=1h&']) {
      const q = route.includes('?') ? route : `${route}?`;
      await invalid(q, ['query.since', 'query.until']);
      await invalid(`${q}since=2025-01-01T00:00:00Z`, ['query.until']);
      await invalid(`${q}until=2025-01-01T00:00:00Z`, ['query.since']);
      await invalid(`${q}since=2025-01-01T00:00:00&until=2025-01-02`, ['query.since', 'query.until']);
      await invalid(`${q}since=yesterday&until=2025-01-02T00:00:00Z`, ['query.since']);
      await invalid(`${q}since=2025-01-02T00:00:00Z&until=2025-01-02T00:00:00Z`, ['query.until']);
      await invalid(`${q}since=2025-01-02T00:00:00Z&until=2025-01-01T00:00:00Z`, ['query.until']);
      // the same instant in two offsets is still not in order
      await invalid(`${q}since=2025-01-02T01:00:00%2B01:00&until=2025-01-02T00:00:00Z`, ['query.until']);
      await invalid(`${q}${W}&cursor=x`, ['query']);
    }
  });

  it('bucket is one of 15m, 1h, 1d and required where there are bins', async () => {
    for (const route of ['timeseries', 'latency']) {
      await invalid(`${route}?${W}`, ['query.bucket']);
      for (const bad of ['5m', '1H', '1w', '', '900']) await invalid(`${route}?${W}&bucket=${bad}`, ['query.bucket']);
      for (const ok of ['15m', '1h', '1d']) expect((await get(`${route}?${W}&bucket=${ok}`)).status).toBe(200);
    }
    await invalid(`summary?${W}&bucket=1h`, ['query']);
  });

  it('limit is an integer 1–50 (default 10), only on detectors', async () => {
    for (const bad of ['0', '51', '2.5', 'ten', '', '-1'])
      await invalid(`detectors?${W}&limit=${bad}`, ['query.limit']);
    for (const ok of ['1', '50']) expect((await get(`detectors?${W}&limit=${ok}`)).status).toBe(200);
    await invalid(`surfaces?${W}&limit=5`, ['query']);
  });
});

describe('window caps', () => {
  const grids = [
    { grid: '15m', cap: WINDOW_CAP_DAYS['15m'], routes: ['timeseries?bucket=15m&', 'latency?bucket=15m&'] },
    { grid: '1h', cap: WINDOW_CAP_DAYS['1h'], routes: ['timeseries?bucket=1h&', 'latency?bucket=1h&'] },
    { grid: '1d', cap: WINDOW_CAP_DAYS['1d'], routes: ['timeseries?bucket=1d&', 'latency?bucket=1d&'] },
    { grid: 'total', cap: WINDOW_CAP_DAYS.total, routes: ['summary?', 'surfaces?', 'detectors?'] },
  ];

  it('match the documented caps', () => {
    expect(WINDOW_CAP_DAYS).toEqual({ '15m': 7, '1h': 92, '1d': 400, total: 400 });
  });

  for (const { grid, cap, routes } of grids) {
    it(`${grid}: exactly ${cap} days passes (even unaligned); ${cap} days + 1 ms is analytics.window_too_wide`, async () => {
      // unaligned on purpose: the cap is on the requested window, not the widened one
      const since = Date.parse('2024-01-01T00:07:00Z');
      const iso = (t: number) => new Date(t).toISOString();
      for (const route of routes) {
        const ok = await get(`${route}since=${iso(since)}&until=${iso(since + cap * DAY)}`);
        expect(ok.status, `${route} ${ok.text.slice(0, 200)}`).toBe(200);
        if (grid !== 'total' && route.startsWith('timeseries')) {
          const binMs = { '15m': 900_000, '1h': 3_600_000, '1d': DAY }[grid]!;
          expect(ok.body.points).toHaveLength(Math.ceil((cap * DAY) / binMs) + 1);
        }
        const tooWide = await get(`${route}since=${iso(since)}&until=${iso(since + cap * DAY + 1)}`);
        expectProblem(tooWide, 400, 'analytics.window_too_wide');
        expect(tooWide.body.max_window_days).toBe(cap);
      }
    });
  }
});
