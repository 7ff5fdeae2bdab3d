/**
 * The rollup job's guarantees (jobs/rollup-analytics.ts, store/analytics-rollup.ts): late scans fold
 * in whatever their time, a re-run with nothing new changes no byte, a run killed between batches
 * leaves no double count, a bucket recomputed without scans disappears, and the first run rolls up
 * rows from before the migration (no transaction id). Its own database: the job spans organizations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as rollupAnalytics from '../../jobs/rollup-analytics.ts';
import { rollUpBuckets, ROLLUP_BUCKET_MS } from '../../store/analytics-rollup.ts';
import { buildOrg, call, isolatedDatabase, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { insertScans } from '../../store/scans.ts';
import { bucketRows, jobContext, rollUp, scanRow, storeScans, type ScanSpec } from './analytics-fixture.ts';

const EDGE = ROLLUP_BUCKET_MS;
let app: TestApp;
let org: TestOrg;
beforeAll(async () => {
  app = await startTestApp({ env: { DATABASE_URL: await isolatedDatabase() } });
  org = await buildOrg(app, 'Rollup');
});
afterAll(async () => app?.close());

/** Each test its own organization and day, so no test sees another's buckets. */
async function freshOrg(name: string) {
  return (await buildOrg(app, name)).orgId;
}
const summary = async (key: string, since: string, until: string) =>
  (await call(app, 'GET', `/v1/analytics/summary?since=${since}&until=${until}`, { key })).body;
const watermark = async () =>
  (await app.db.query('SELECT xid_watermark::text AS w FROM analytics_rollup_state')).rows[0]?.w as string | undefined;
/** Totals per bucket recomputed from the raw scans, for comparison with the rollup rows. */
async function rawTotals(orgId: string): Promise<Map<number, number>> {
  const { rows } = await app.db.query<{ start: number; n: number }>(
    `SELECT (extract(epoch FROM date_bin('15 minutes', created_at, 'epoch')) * 1000)::bigint AS start, count(*)::int AS n
     FROM scans WHERE org_id = $1 GROUP BY 1`,
    [orgId],
  );
  return new Map(rows.map((r) => [Number(r.start), r.n]));
}
async function rolledTotals(orgId: string): Promise<Map<number, number>> {
  return new Map((await bucketRows(app.db, orgId)).map((r) => [r.bucket_start.getTime(), r.total as number]));
}

describe('rollup-analytics', () => {
  it('folds a late scan (old time, committed after its bucket was rolled up) in on the next run', async () => {
    const t = '2025-03-03T10:07:00.000Z';
    await storeScans(app.db, org.orgId, [{ at: new Date(t), action: 'blocked' }, { at: new Date(t) }]);
    await rollUp(app);
    const window = ['2025-03-03T10:00:00Z', '2025-03-03T10:15:00Z'] as const;
    expect(await summary(org.admin, ...window)).toMatchObject({ total: 2, allowed: 1, blocked: 1 });
    await storeScans(app.db, org.orgId, [{ at: new Date('2025-03-03T10:14:59.999Z'), action: 'warned' }]);
    await rollUp(app);
    expect(await summary(org.admin, ...window)).toMatchObject({ total: 3, allowed: 1, warned: 1, blocked: 1 });
  });

  it('recomputes the hour and day latency sketches of a bucket a late scan changed', async () => {
    const orgId = await freshOrg('Rollup latency bins');
    await storeScans(app.db, orgId, [{ at: new Date('2025-03-06T09:20:00Z'), latencyMs: 10 }]);
    await rollUp(app);
    const bins = async () =>
      (
        await app.db.query(
          `SELECT grain, bin_start, (latency->>'count')::int AS n, (latency->>'max')::float8 AS hi
           FROM analytics_latency WHERE org_id = $1 ORDER BY grain, bin_start`,
          [orgId],
        )
      ).rows;
    expect(await bins()).toEqual([
      { grain: '1d', bin_start: new Date('2025-03-06T00:00:00Z'), n: 1, hi: 10 },
      { grain: '1h', bin_start: new Date('2025-03-06T09:00:00Z'), n: 1, hi: 10 },
    ]);
    await storeScans(app.db, orgId, [{ at: new Date('2025-03-06T09:59:59.999Z'), latencyMs: 300 }]);
    await rollUp(app);
    expect(await bins()).toEqual([
      { grain: '1d', bin_start: new Date('2025-03-06T00:00:00Z'), n: 2, hi: 300 },
      { grain: '1h', bin_start: new Date('2025-03-06T09:00:00Z'), n: 2, hi: 300 },
    ]);
  });

  it('finds a scan whose transaction was still open during a run (the watermark is the snapshot xmin)', async () => {
    const orgId = await freshOrg('Rollup in-flight');
    const client = await app.db.connect();
    try {
      await client.query('BEGIN');
      await insertScans(client, [scanRow(orgId, { at: new Date('2025-03-04T08:00:00Z'), action: 'flagged' })]);
      await rollUp(app);
      expect(await rolledTotals(orgId)).toEqual(new Map());
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await rollUp(app);
    expect(await rolledTotals(orgId)).toEqual(new Map([[Date.parse('2025-03-04T08:00:00Z'), 1]]));
  });

  it('leaves byte-identical rows when re-run with nothing new', async () => {
    const orgId = await freshOrg('Rollup rerun');
    const specs: ScanSpec[] = Array.from({ length: 40 }, (_, i) => ({
      at: new Date(Date.parse('2025-03-05T00:00:00Z') + i * 7 * 60_000),
      action: (['allowed', 'flagged', 'warned', 'blocked'] as const)[i % 4],
      ...(i % 5 === 0 ? { observed: 'blocked' as const } : {}),
      surface: i % 3 ? 'user_message' : 'tool_result',
      detectors: i % 2 ? ['pii'] : [],
      latencyMs: 0.5 + i * 13.7,
    }));
    await storeScans(app.db, orgId, specs);
    await rollUp(app);
    const first = await bucketRows(app.db, orgId);
    expect(first.length).toBeGreaterThan(10);
    await rollUp(app);
    await rollUp(app);
    expect(await bucketRows(app.db, orgId)).toEqual(first);
    expect(await rolledTotals(orgId)).toEqual(await rawTotals(orgId));
  });

  it('a run killed after its first batch double counts nothing; the next run gives the exact counts', async () => {
    const orgId = await freshOrg('Rollup killed');
    const start = Date.parse('2025-03-10T00:00:00Z');
    // 150 buckets: more than the job's 100 per statement
    const specs = Array.from({ length: 150 }, (_, i) => ({ at: new Date(start + i * EDGE + 1000) }));
    await storeScans(app.db, orgId, specs);
    await rollUp(app);
    const before = await rolledTotals(orgId);
    expect([...before.values()].every((n) => n === 1)).toBe(true);

    // every bucket gets a second scan, then a run dies at its first touch (after the first batch)
    await storeScans(
      app.db,
      orgId,
      specs.map((s) => ({ at: new Date(s.at.getTime() + 60_000), action: 'blocked' as const })),
    );
    const mark = await watermark();
    let touched = 0;
    const dying = jobContext(app, async () => {
      touched++;
      throw new Error('killed');
    });
    await expect(rollupAnalytics.run(dying)).rejects.toThrow('killed');
    expect(touched).toBe(1);
    expect(await watermark()).toBe(mark);
    const half = await rolledTotals(orgId);
    expect(half.size).toBe(150);
    expect([...half.values()].every((n) => n === 1 || n === 2)).toBe(true);
    // the first batch may hold other organizations' pending buckets too: at most 100 of ours
    const redone = [...half.values()].filter((n) => n === 2).length;
    expect(redone).toBeGreaterThan(0);
    expect(redone).toBeLessThanOrEqual(100);

    await rollUp(app);
    const after = await rolledTotals(orgId);
    expect(after).toEqual(await rawTotals(orgId));
    expect([...after.values()].every((n) => n === 2)).toBe(true);
    const rows = await bucketRows(app.db, orgId);
    expect(rows.every((r) => r.allowed === 1 && r.blocked === 1 && r.total === 2)).toBe(true);
  });

  it('deletes a bucket recomputed without scans (the watermark does not find deletions: rollUpBuckets does)', async () => {
    const orgId = await freshOrg('Rollup emptied');
    const at = Date.parse('2025-03-12T06:00:00Z');
    await storeScans(app.db, orgId, [{ at: new Date(at) }, { at: new Date(at + EDGE) }]);
    await rollUp(app);
    expect((await rolledTotals(orgId)).size).toBe(2);
    await app.db.query('DELETE FROM scans WHERE org_id = $1 AND created_at < $2', [orgId, new Date(at + EDGE)]);
    await rollUpBuckets(app.db, [
      { orgId, start: at },
      { orgId, start: at + EDGE },
    ]);
    expect(await rolledTotals(orgId)).toEqual(new Map([[at + EDGE, 1]]));
  });

  it('the first run (no state) rolls up scans from before the migration (ingest_xid NULL)', async () => {
    const orgId = await freshOrg('Rollup pre-migration');
    const at = Date.parse('2025-03-14T12:00:00Z');
    await storeScans(app.db, orgId, [
      { at: new Date(at), action: 'blocked', detectors: ['pii'] },
      { at: new Date(at + 5 * 60_000), observed: 'flagged' },
      { at: new Date(at + 2 * EDGE) },
    ]);
    await rollUp(app);
    const expected = await bucketRows(app.db, orgId);
    await app.db.query('UPDATE scans SET ingest_xid = NULL WHERE org_id = $1', [orgId]);
    await app.db.query('DELETE FROM analytics_buckets WHERE org_id = $1', [orgId]);
    // with a watermark, rows without a transaction id are never pending
    await rollUp(app);
    expect(await bucketRows(app.db, orgId)).toEqual([]);
    await app.db.query('DELETE FROM analytics_rollup_state');
    await rollUp(app);
    expect(await bucketRows(app.db, orgId)).toEqual(expected);
    expect(await watermark()).toBeDefined();
    expect(expected.map((r) => [r.total, r.allowed, r.flagged, r.blocked])).toEqual([
      [2, 0, 1, 1],
      [1, 1, 0, 0],
    ]);
  });

  it('a watermark ahead of the cluster (a restore into another cluster) rolls everything up again, then resumes', async () => {
    const orgId = await freshOrg('Rollup restored');
    const at = Date.parse('2025-03-15T08:00:00Z');
    await storeScans(app.db, orgId, [{ at: new Date(at), action: 'warned' }]);
    await rollUp(app);
    const expected = await bucketRows(app.db, orgId);
    // what a logical restore leaves: the stored watermark and this table's ids from another cluster's future
    const future = '9000000000000';
    await app.db.query('UPDATE analytics_rollup_state SET xid_watermark = $1', [future]);
    await app.db.query('UPDATE scans SET ingest_xid = $2 WHERE org_id = $1', [orgId, future]);
    await app.db.query('DELETE FROM analytics_buckets WHERE org_id = $1', [orgId]);
    await rollUp(app);
    expect(await bucketRows(app.db, orgId)).toEqual(expected);
    expect(BigInt((await watermark())!)).toBeLessThan(BigInt(future));
    // afterwards new scans are found as usual, and the restored rows are not re-found on every run
    await storeScans(app.db, orgId, [{ at: new Date(at + 60_000), action: 'blocked' }]);
    const result = await rollUp(app);
    expect(result.buckets).toBe(1);
    expect((await bucketRows(app.db, orgId)).map((r) => [r.total, r.warned, r.blocked])).toEqual([[2, 1, 1]]);
    expect((await rollUp(app)).buckets).toBe(0);
  });
});
