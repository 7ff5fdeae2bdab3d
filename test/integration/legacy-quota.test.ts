import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { legacyMonth, legacyUsage, setLegacyQuota, takeLegacyRequest } from '../../services/legacy-quota.ts';
import { buildApiKey, buildOrg, call, expectProblem, startTestApp, type TestApp } from '../support/harness.ts';
import { runCli } from '../support/cli.ts';

const clock = new ManualClock('2026-11-24T12:00:00.000Z');
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ clock });
});
afterAll(async () => app?.close());

const NOV = new Date('2026-11-15T08:00:00.000Z');
const operator = { id: 'test', requestId: null };

async function takes(orgId: string, n: number, now: Date, defaultQuota: number, db = app.db) {
  return Promise.all(Array.from({ length: n }, () => takeLegacyRequest(db, orgId, now, defaultQuota)));
}

describe('takeLegacyRequest', () => {
  it('allows exactly the limit under concurrency, and counts only allowed requests', async () => {
    const org = await buildOrg(app);
    // a connection per take: the 30 statements really run at once (the app's pool has 5)
    const wide = new pg.Pool({ connectionString: app.config.DATABASE_URL!, max: 30 });
    await Promise.all(Array.from({ length: 30 }, () => wide.query('SELECT 1')));
    const got = await takes(org.orgId, 30, NOV, 20, wide).finally(() => wide.end());
    expect(got.filter((t) => t.allowed)).toHaveLength(20);
    expect(
      got
        .filter((t) => t.allowed)
        .map((t) => t.used)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const t of got.filter((x) => !x.allowed)) expect(t).toMatchObject({ limit: 20, used: 20 });
    expect((await legacyUsage(app.db, org.orgId, NOV, 20)).used).toBe(20);
    // refused requests were not counted: raising the limit leaves exactly its difference
    const more = await takes(org.orgId, 10, NOV, 25);
    expect(more.filter((t) => t.allowed)).toHaveLength(5);
  });

  it('starts again each calendar month (UTC) and says when', async () => {
    const org = await buildOrg(app);
    const lastMs = new Date('2026-12-31T23:59:59.999Z');
    const first = await takeLegacyRequest(app.db, org.orgId, lastMs, 1);
    expect(first).toEqual({ allowed: true, limit: 1, used: 1, resetsAt: new Date('2027-01-01T00:00:00.000Z') });
    expect((await takeLegacyRequest(app.db, org.orgId, lastMs, 1)).allowed).toBe(false);
    const next = await takeLegacyRequest(app.db, org.orgId, new Date('2027-01-01T00:00:00.000Z'), 1);
    expect(next).toEqual({ allowed: true, limit: 1, used: 1, resetsAt: new Date('2027-02-01T00:00:00.000Z') });
    // a local-time offset does not move the month: 2027-01-31T23:30-05:00 is February in UTC
    const feb = await takeLegacyRequest(app.db, org.orgId, new Date('2027-01-31T23:30:00-05:00'), 1);
    expect(feb).toMatchObject({ allowed: true, used: 1, resetsAt: new Date('2027-03-01T00:00:00.000Z') });
    expect(legacyMonth(new Date('2028-02-29T12:00:00Z'))).toEqual({
      month: '2028-02',
      firstDay: '2028-02-01',
      resetsAt: new Date('2028-03-01T00:00:00.000Z'),
    });
  });

  it('uses the organization’s override over the default, and the default again when cleared', async () => {
    const org = await buildOrg(app);
    const untouched = await buildOrg(app);
    expect(await setLegacyQuota(app.db, org.orgId, 3, operator, NOV)).toBe(true);
    expect((await takes(org.orgId, 6, NOV, 100)).filter((t) => t.allowed)).toHaveLength(3);
    expect((await takeLegacyRequest(app.db, org.orgId, NOV, 100)).limit).toBe(3);
    expect((await takes(untouched.orgId, 6, NOV, 100)).filter((t) => t.allowed)).toHaveLength(6);
    expect(await setLegacyQuota(app.db, org.orgId, null, operator, NOV)).toBe(true);
    expect(await takeLegacyRequest(app.db, org.orgId, NOV, 100)).toMatchObject({ allowed: true, limit: 100, used: 4 });
    // a limit of 0 refuses everything; lowered below this month's count, used shows the count
    await setLegacyQuota(app.db, org.orgId, 0, operator, NOV);
    expect(await takeLegacyRequest(app.db, org.orgId, NOV, 100)).toMatchObject({ allowed: false, limit: 0, used: 4 });
    const fresh = await buildOrg(app);
    expect(await takeLegacyRequest(app.db, fresh.orgId, NOV, 0)).toMatchObject({ allowed: false, limit: 0, used: 0 });
    const { rows } = await app.db.query(
      `SELECT change_summary FROM audit_events WHERE org_id = $1 AND resource_type = 'organization' ORDER BY id`,
      [org.orgId],
    );
    expect(rows.map((r) => r.change_summary as string)).toEqual([
      'legacy monthly quota set to 3',
      'legacy monthly quota set to the default',
      'legacy monthly quota set to 0',
    ]);
    expect(await setLegacyQuota(app.db, 'org_00000000000000000000000000', 5, operator, NOV)).toBe(false);
  });
});

describe('GET /v1/legacy-usage', () => {
  it('answers the month, limit, count and reset instant; scope scans:read', async () => {
    const org = await buildOrg(app);
    clock.set('2026-11-24T12:00:00.000Z');
    const empty = await call(app, 'GET', '/v1/legacy-usage', { key: org.admin });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      month: '2026-11',
      limit: app.config.LEGACY_MONTHLY_QUOTA,
      used: 0,
      resets_at: '2026-12-01T00:00:00.000Z',
    });
    await takes(org.orgId, 3, clock.now(), app.config.LEGACY_MONTHLY_QUOTA);
    await setLegacyQuota(app.db, org.orgId, 50, operator, clock.now());
    const reader = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
    expect((await call(app, 'GET', '/v1/legacy-usage', { key: reader.secret })).body).toMatchObject({
      limit: 50,
      used: 3,
    });
    clock.set('2026-12-01T00:00:00.000Z');
    expect((await call(app, 'GET', '/v1/legacy-usage', { key: org.admin })).body).toEqual({
      month: '2026-12',
      limit: 50,
      used: 0,
      resets_at: '2027-01-01T00:00:00.000Z',
    });
    const writer = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    expectProblem(await call(app, 'GET', '/v1/legacy-usage', { key: writer.secret }), 403, 'auth.insufficient_scope');
  });
});

describe('npx content-firewall orgs set-legacy-quota', () => {
  const cli = (args: string[]) => runCli('orgs', 'set-legacy-quota', ...args);
  const overrideOf = async (orgId: string) =>
    (await app.db.query('SELECT legacy_monthly_quota FROM organizations WHERE id = $1', [orgId])).rows[0]
      .legacy_monthly_quota as number | null;

  it('sets and clears the override; refuses a bad value', async () => {
    const org = await buildOrg(app);
    const set = await cli(['--org', org.orgId, '--quota', '250', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ org_id: org.orgId, legacy_monthly_quota: 250 });
    expect(await overrideOf(org.orgId)).toBe(250);
    const cleared = await cli(['--org', org.orgId, '--quota', 'default']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toContain('the default');
    expect(await overrideOf(org.orgId)).toBeNull();
    for (const bad of ['lots', '99999999999']) {
      const r = await cli(['--org', org.orgId, '--quota', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--quota');
    }
    expect((await cli(['--org', org.orgId])).code).toBe(2);
    const unknown = await cli(['--org', 'no-such-org', '--quota', '5']);
    expect(unknown.code).toBe(1);
    expect(await overrideOf(org.orgId)).toBeNull();
  }, 120_000);
});
