/**
 * bench:scaling's analytics rollup phase (step 3 of benchmarks/scaling.ts): --rollup-scans scans seeded
 * into one past 15-minute bucket, then jobs/rollup-analytics.ts `run` timed twice in this process.
 */
import type pg from 'pg';
import * as rollupAnalytics from '../jobs/rollup-analytics.ts';
import type { JobContext } from '../jobs/job.ts';
import { loadConfig } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics } from '../lib/metrics.ts';
import { ROLLUP_BUCKET_MS } from '../store/analytics-rollup.ts';
import { createPool } from '../store/db.ts';
import { insertScans } from '../store/scans.ts';
import { liveScanRow, seedScans } from './analytics-data.ts';
import type { PrivatePostgres } from './private-stack.ts';
import { treeCpuSeconds } from './processes.ts';
import { SECRET } from './service.ts';
import { lsnBytes, rollupRate, type RollupRun } from './scaling-model.ts';
import type { ScalingReport } from './scaling-report.ts';

/** What the rollup phase needs of the run: the private PostgreSQL, its admin pool and counters. */
export interface RollupPhase {
  postgres: PrivatePostgres;
  admin: pg.Pool;
  rollupScans: number;
  say: (s: string) => unknown;
  count: (sql: string, params?: unknown[]) => Promise<number>;
  scansStored: () => Promise<number>;
}

/** The rollup's runs: the first (every bucket) and one after 1,000 late scans in the seeded bucket. */
export async function rollupPhase({
  postgres,
  admin,
  rollupScans,
  say,
  count,
  scansStored,
}: RollupPhase): Promise<NonNullable<ScalingReport['rollup']>> {
  const db = createPool(postgres.url, 2, () => undefined);
  try {
    const orgId = (await admin.query<{ org_id: string }>('SELECT org_id FROM scans LIMIT 1')).rows[0]?.org_id;
    if (!orgId) throw new Error('no scans stored: nothing to roll up');
    // A whole past bucket (two before the current one), so the seeded scans are one bucket.
    const bucket = Math.floor(Date.now() / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS - 2 * ROLLUP_BUCKET_MS;
    say(`seeding ${rollupScans} scans into the bucket of ${new Date(bucket).toISOString()}…`);
    await seedScans(
      db,
      { orgId, count: rollupScans, startMs: bucket, spanMs: ROLLUP_BUCKET_MS - 1, firstRow: 1 },
      50_000,
      1,
      () => undefined,
    );
    await admin.query('VACUUM ANALYZE scans');
    const ctx: JobContext = {
      db,
      clock: systemClock,
      logger: createLogger('silent'),
      metrics: createMetrics(false),
      config: loadConfig({ ...process.env, DATABASE_URL: postgres.url, SECRET_KEY: SECRET, REDIS_URL: undefined }),
      touch: async () => undefined,
    };
    const runs: (RollupRun & ReturnType<typeof rollupRate>)[] = [];
    const timed = async (label: string, scansRead: () => Promise<number>) => {
      const read = await scansRead();
      const pg0 = treeCpuSeconds(postgres!.pid(), true)!;
      const wal0 = lsnBytes((await admin!.query<{ l: string }>('SELECT pg_current_wal_lsn()::text l')).rows[0]!.l);
      const t0 = performance.now();
      const r = await rollupAnalytics.run(ctx);
      const wall = (performance.now() - t0) / 1000;
      const cpu = treeCpuSeconds(postgres!.pid(), true)! - pg0;
      const wal =
        lsnBytes((await admin!.query<{ l: string }>('SELECT pg_current_wal_lsn()::text l')).rows[0]!.l) - wal0;
      const run: RollupRun = {
        label,
        scans_read: read,
        buckets: r.buckets,
        wall_s: Math.round(wall * 1000) / 1000,
        postgres_cpu_s: Math.round(cpu * 1000) / 1000,
        wal_bytes: wal,
      };
      runs.push({ ...run, ...rollupRate(run) });
      say(
        `  rollup ${label}: ${read} scans in ${r.buckets} buckets, ${run.wall_s} s wall, ${run.postgres_cpu_s} s PostgreSQL CPU`,
      );
    };
    await timed('first run (every bucket)', scansStored);
    const late = Array.from({ length: 1000 }, (_, i) =>
      liveScanRow(orgId, i, bucket + 1 + ((i * 7919) % (ROLLUP_BUCKET_MS - 2))),
    );
    for (let i = 0; i < late.length; i += 64) await insertScans(db, late.slice(i, i + 64));
    const inBucket = () =>
      count(
        `SELECT count(*)::text AS n FROM scans WHERE org_id = $1 AND created_at >= $2 AND created_at < $2::timestamptz + interval '15 minutes'`,
        [orgId, new Date(bucket)],
      );
    await timed('1,000 late scans into the seeded bucket (recomputed whole)', inBucket);
    return { runs };
  } finally {
    await db.end();
  }
}
