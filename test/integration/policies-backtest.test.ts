// Policies :backtest: stored scans of a window counted per (previous → new) action, nothing persisted.
import { describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem } from '../support/harness.ts';
import {
  app,
  body,
  count,
  create,
  org,
  other,
  paths,
  rule,
  scan,
  SSN_TEXT,
  usePoliciesApp,
} from './policies-fixture.ts';

usePoliciesApp();

describe('backtest', () => {
  it('counts stored scans per (previous → new) action with samples, and persists nothing', async () => {
    const mine = await buildOrg(app);
    const since = new Date(Date.now() - 60_000).toISOString();
    const ids: string[] = [];
    for (const t of [SSN_TEXT, SSN_TEXT, 'hello', 'hello', 'hello'])
      ids.push((await scan(t, {}, {}, mine.admin)).body.id);
    const p = (await create(body({ rules: [rule({ id: 'ssn' })], default_action: 'warned' }), mine.admin)).body;
    const before = await count('scans', mine.orgId);
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: mine.admin,
      json: { since, until: new Date(Date.now() + 60_000).toISOString(), samples: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      policy_id: p.id,
      revision_id: p.revision_id,
      scans_evaluated: 5,
      changed: 5,
      truncated_at_scan_id: null,
    });
    const byPair = Object.fromEntries(
      r.body.transitions.map((t: { previous_action: string; new_action: string; count: number }) => [
        `${t.previous_action}>${t.new_action}`,
        t.count,
      ]),
    );
    expect(byPair['allowed>warned']).toBe(3);
    expect(
      Object.entries(byPair)
        .filter(([k]) => k.endsWith('>blocked'))
        .reduce((n, [, v]) => n + (v as number), 0),
    ).toBe(2);
    for (const t of r.body.transitions) expect(t.sample_scan_ids).toHaveLength(1);
    expect(await count('scans', mine.orgId)).toBe(before);
    // max_scans stops early and says where.
    const capped = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: mine.admin,
      json: { since, until: new Date(Date.now() + 60_000).toISOString(), max_scans: 2 },
    });
    expect(capped.body).toMatchObject({ scans_evaluated: 2, truncated_at_scan_id: ids[1] });
    // Another organization's scans are not counted, and its policy is not reachable.
    expectProblem(
      await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
        key: other.admin,
        json: { since, until: new Date().toISOString() },
      }),
      404,
      'policies.not_found',
    );
  });

  const window = { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' };
  it.each<[string, unknown, string]>([
    ['an inverted window', { since: window.until, until: window.since }, 'until'],
    ['a missing since', { until: window.until }, 'since'],
    ['a malformed until', { since: window.since, until: 'tomorrow' }, 'until'],
    ['21 samples', { ...window, samples: 21 }, 'samples'],
    ['max_scans 0', { ...window, max_scans: 0 }, 'max_scans'],
    ['max_scans over 10,000,000', { ...window, max_scans: 10_000_001 }, 'max_scans'],
    ['an unknown field', { ...window, dry_run: true }, ''],
  ])('rejects %s', async (_l, b, path) => {
    const p = (await create(body())).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, { key: org.admin, json: b });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toContain(path);
  });

  it('accepts samples 0 and max_scans 10,000,000', async () => {
    const p = (await create(body())).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: org.admin,
      json: { ...window, samples: 0, max_scans: 10_000_000 },
    });
    expect(r.status).toBe(200);
  });
});
