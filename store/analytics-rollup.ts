/**
 * The analytics rollup's statements (jobs/rollup-analytics.ts): which 15-minute buckets hold scans
 * the rollups have not seen, and the recomputation of whole buckets from their scans. Cross-
 * organization on purpose (a system job), like store/retention.ts.
 *
 * Progress is a transaction-id watermark, not a time: every scan row carries the id of the
 * transaction that inserted it (`ingest_xid`, migration 0011). A run reads, in one snapshot, the
 * snapshot's xmin (every transaction below it has finished) and the buckets of the scans at or above
 * the watermark; it recomputes those buckets and then moves the watermark to that xmin. A scan
 * committed after its bucket was rolled up has a transaction id at or above the xmin of every
 * snapshot that could not see it, so the next run finds it: late scans fold in, whatever their time.
 */
import { idFloor } from '../lib/ids.ts';
import { SKETCH_INDEXING, SKETCH_RELATIVE_ACCURACY } from '../lib/latency-sketch.ts';
import type { Db, Queryable } from './db.ts';

/** The rollup grain. Every analytics answer is a sum of these buckets. */
export const ROLLUP_BUCKET_MS = 15 * 60_000;

/**
 * The grids answers are binned on, by name: the rollup grain, and the hour and day whose latency
 * sketches the rollup pre-merges (analytics_latency.grain).
 */
export const GRID_MS = { '15m': ROLLUP_BUCKET_MS, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Grid = keyof typeof GRID_MS;

/**
 * The four counts by effective action of rows whose `action` column is `column`. This and the two below
 * say what analytics count of a scan, for the rollup and the exact window edges (store/analytics.ts) alike.
 */
export const actionCountsSql = (column: string): string =>
  ['allowed', 'flagged', 'warned', 'blocked']
    .map((a) => `count(*) FILTER (WHERE ${column} = '${a}')::int AS ${a}`)
    .join(', ');

/**
 * A LATERAL subquery: one row (`detector`) per detector that reported at least one item in the
 * findings `findings` (an SQL expression): a detector counts a scan once.
 */
export const reportingDetectorsSql = (findings: string): string =>
  `SELECT DISTINCT f->>'detector' AS detector FROM jsonb_array_elements(${findings}) f
           WHERE f->>'detector' IS NOT NULL AND jsonb_typeof(f->'items') = 'array' AND jsonb_array_length(f->'items') > 0`;

/** A scan's effective action (`observed_action ?? action`) from the scans row `x`. */
export const EFFECTIVE_ACTION_SQL = 'coalesce(x.observed_action, x.action)';

/** One organization's 15-minute bucket (its start, epoch ms). */
export interface BucketRef {
  orgId: string;
  start: number;
}

export interface PendingBuckets {
  /** The watermark the buckets were found from; null before the first run (every bucket is pending). */
  watermark: string | null;
  /** What the watermark becomes once `buckets` are rolled up (int8 as text). */
  next: string;
  /**
   * The stored watermark was ahead of every transaction id this cluster has assigned: the database
   * was restored into another cluster (a logical dump restarts the counter). Every bucket is
   * pending, as on a first run, and the watermark is set back to `next`.
   */
  reset: boolean;
  buckets: BucketRef[];
}

/**
 * The buckets holding scans at or above the watermark and below the snapshot's xmax (every bucket
 * with scans on the first run, or after a reset), and the snapshot xmin that becomes the next
 * watermark, read in one REPEATABLE READ snapshot so they agree. The xmax bound keeps rows a restore
 * brought with ids from another cluster's future out of every run until the counter passes them
 * (then each is found once: a harmless recompute).
 */
export async function pendingBuckets(db: Db): Promise<PendingBuckets> {
  const client = await db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await client.query<{ next: string; horizon: string; stored: string | null }>(
      `SELECT pg_snapshot_xmin(s)::text AS next, pg_snapshot_xmax(s)::text AS horizon,
              (SELECT xid_watermark::text FROM analytics_rollup_state) AS stored
       FROM pg_current_snapshot() s`,
    );
    const { next, horizon, stored } = head.rows[0]!;
    const reset = stored !== null && BigInt(stored) > BigInt(horizon);
    const watermark = reset ? null : stored;
    const bucketOf = `date_bin('15 minutes', created_at, 'epoch')`;
    const found = await client.query<{ org_id: string; start: string }>(
      watermark === null
        ? `SELECT DISTINCT org_id, (extract(epoch FROM ${bucketOf}) * 1000)::bigint::text AS start FROM scans`
        : `SELECT DISTINCT org_id, (extract(epoch FROM ${bucketOf}) * 1000)::bigint::text AS start
           FROM scans WHERE ingest_xid >= $1::bigint AND ingest_xid < $2::bigint`,
      watermark === null ? [] : [watermark, horizon],
    );
    await client.query('COMMIT');
    return {
      watermark,
      next,
      reset,
      buckets: found.rows.map((r) => ({ orgId: r.org_id, start: Number(r.start) })),
    };
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * Recomputes `buckets` from their scans, each as one whole row (an upsert that replaces every
 * column; a bucket whose scans are all gone is deleted): running it twice leaves the same rows, and
 * a run stopped between two calls leaves every bucket either as it was or recomputed. Counts go by
 * the effective action (`observed_action ?? action`); a detector counts a scan in which it reported
 * at least one item; latencies go into a DDSketch built exactly as lib/latency-sketch.ts builds one.
 * Returns how many bucket rows were written.
 */
export async function rollUpBuckets(q: Queryable, buckets: readonly BucketRef[]): Promise<number> {
  if (buckets.length === 0) return 0;
  const { rowCount } = await q.query(
    `WITH t AS (
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[]) AS t(org_id, bucket_start, id_lo, id_hi)
     ),
     -- LATERAL (with OFFSET 0, so it is not flattened back into a join): each bucket is a range scan
     -- of scans_pkey. As a plain join the planner hashes the bucket list and scans the whole table
     -- (11.6 s against 0.8–1.1 s for 100 buckets over 10 million scans: docs/analytics-bench.md).
     s AS MATERIALIZED (
       SELECT t.org_id, t.bucket_start, sc.action, sc.surface, sc.latency_ms, sc.findings
       FROM t CROSS JOIN LATERAL (
         SELECT ${EFFECTIVE_ACTION_SQL} AS action, x.surface, x.latency_ms::float8 AS latency_ms, x.findings
         FROM scans x
         WHERE x.org_id = t.org_id AND x.id >= t.id_lo AND x.id < t.id_hi
           AND x.created_at >= t.bucket_start AND x.created_at < t.bucket_start + interval '15 minutes'
         OFFSET 0
       ) sc
     ),
     totals AS (
       SELECT org_id, bucket_start, count(*)::int AS total,
              ${actionCountsSql('action')},
              count(*) FILTER (WHERE latency_ms <= $5)::int AS zero,
              min(latency_ms) AS lo, max(latency_ms) AS hi
       FROM s GROUP BY 1, 2
     ),
     surfaces AS (
       SELECT org_id, bucket_start, jsonb_object_agg(surface, n) AS m
       FROM (SELECT org_id, bucket_start, surface, count(*)::int AS n FROM s GROUP BY 1, 2, 3) x GROUP BY 1, 2
     ),
     detectors AS (
       SELECT org_id, bucket_start, jsonb_object_agg(detector, n) AS m
       FROM (
         SELECT s.org_id, s.bucket_start, d.detector, count(*)::int AS n
         FROM s CROSS JOIN LATERAL (
           ${reportingDetectorsSql('s.findings')}
         ) d
         GROUP BY 1, 2, 3
       ) x GROUP BY 1, 2
     ),
     latency AS (
       SELECT org_id, bucket_start, jsonb_object_agg(i::text, n) AS m
       FROM (
         SELECT org_id, bucket_start, ceil(ln(latency_ms) / $6::float8)::int AS i, count(*)::int AS n
         FROM s WHERE latency_ms > $5 GROUP BY 1, 2, 3
       ) x GROUP BY 1, 2
     ),
     gone AS (
       DELETE FROM analytics_buckets b USING t
       WHERE b.org_id = t.org_id AND b.bucket_start = t.bucket_start
         AND NOT EXISTS (SELECT 1 FROM totals WHERE totals.org_id = t.org_id AND totals.bucket_start = t.bucket_start)
     )
     INSERT INTO analytics_buckets (org_id, bucket_start, total, allowed, flagged, warned, blocked, surfaces, detectors, latency)
     SELECT tt.org_id, tt.bucket_start, tt.total, tt.allowed, tt.flagged, tt.warned, tt.blocked, sf.m,
            coalesce(d.m, '{}'::jsonb),
            jsonb_build_object('alpha', $7::float8, 'count', tt.total, 'zero', tt.zero, 'min', tt.lo, 'max', tt.hi,
                               'buckets', coalesce(l.m, '{}'::jsonb))
     FROM totals tt
     JOIN surfaces sf USING (org_id, bucket_start)
     LEFT JOIN detectors d USING (org_id, bucket_start)
     LEFT JOIN latency l USING (org_id, bucket_start)
     ON CONFLICT (org_id, bucket_start) DO UPDATE SET
       total = EXCLUDED.total, allowed = EXCLUDED.allowed, flagged = EXCLUDED.flagged, warned = EXCLUDED.warned,
       blocked = EXCLUDED.blocked, surfaces = EXCLUDED.surfaces, detectors = EXCLUDED.detectors, latency = EXCLUDED.latency`,
    [
      buckets.map((b) => b.orgId),
      buckets.map((b) => new Date(b.start)),
      buckets.map((b) => idFloor('scan', new Date(b.start))),
      buckets.map((b) => idFloor('scan', new Date(b.start + ROLLUP_BUCKET_MS))),
      SKETCH_INDEXING.minValue,
      SKETCH_INDEXING.logGamma,
      SKETCH_RELATIVE_ACCURACY,
    ],
  );
  return rowCount ?? 0;
}

/** An hour or a day of one organization (its start, epoch ms) whose latency sketch is pre-merged. */
export interface LatencyBinRef {
  orgId: string;
  grain: Exclude<Grid, '15m'>;
  start: number;
}

/** The hour and day bins that hold `buckets`, each once. */
export function latencyBinsOf(buckets: readonly BucketRef[]): LatencyBinRef[] {
  const bins = new Map<string, LatencyBinRef>();
  for (const b of buckets) {
    for (const grain of ['1h', '1d'] as const) {
      const start = Math.floor(b.start / GRID_MS[grain]) * GRID_MS[grain];
      bins.set(`${b.orgId} ${grain} ${start}`, { orgId: b.orgId, grain, start });
    }
  }
  return [...bins.values()];
}

/**
 * Recomputes the hour and day latency sketches of `bins` by merging the 15-minute sketches inside
 * each (bucket counts added, extremes taken): a replace like rollUpBuckets, so it is as idempotent;
 * a bin with no bucket left is deleted. Run after the bins' buckets were rolled up. Returns how many
 * bin rows were written.
 */
export async function rollUpLatencyBins(q: Queryable, bins: readonly LatencyBinRef[]): Promise<number> {
  if (bins.length === 0) return 0;
  const { rowCount } = await q.query(
    `WITH t AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS t(org_id, grain, bin_start)
     ),
     r AS (
       SELECT t.org_id, t.grain, t.bin_start, b.latency
       FROM t CROSS JOIN LATERAL (
         SELECT latency FROM analytics_buckets b
         WHERE b.org_id = t.org_id AND b.bucket_start >= t.bin_start
           AND b.bucket_start < t.bin_start + CASE t.grain WHEN '1h' THEN interval '1 hour' ELSE interval '1 day' END
         OFFSET 0
       ) b
     ),
     counts AS (
       SELECT org_id, grain, bin_start, jsonb_object_agg(key, n) AS buckets
       FROM (
         SELECT r.org_id, r.grain, r.bin_start, e.key, sum(e.value::bigint) AS n
         FROM r CROSS JOIN LATERAL jsonb_each_text(r.latency->'buckets') e GROUP BY 1, 2, 3, 4
       ) x GROUP BY 1, 2, 3
     ),
     per_bin AS (
       SELECT org_id, grain, bin_start, (min(latency->>'alpha'))::float8 AS alpha,
              sum((latency->>'count')::bigint) AS n, sum((latency->>'zero')::bigint) AS zero,
              min((latency->>'min')::float8) AS lo, max((latency->>'max')::float8) AS hi
       FROM r GROUP BY 1, 2, 3
     ),
     gone AS (
       DELETE FROM analytics_latency l USING t
       WHERE l.org_id = t.org_id AND l.grain = t.grain AND l.bin_start = t.bin_start
         AND NOT EXISTS (
           SELECT 1 FROM per_bin p WHERE p.org_id = t.org_id AND p.grain = t.grain AND p.bin_start = t.bin_start
         )
     )
     INSERT INTO analytics_latency (org_id, grain, bin_start, latency)
     SELECT p.org_id, p.grain, p.bin_start,
            jsonb_build_object('alpha', p.alpha, 'count', p.n, 'zero', p.zero, 'min', p.lo, 'max', p.hi,
                               'buckets', coalesce(c.buckets, '{}'::jsonb))
     FROM per_bin p LEFT JOIN counts c USING (org_id, grain, bin_start)
     ON CONFLICT (org_id, grain, bin_start) DO UPDATE SET latency = EXCLUDED.latency`,
    [bins.map((b) => b.orgId), bins.map((b) => b.grain), bins.map((b) => new Date(b.start))],
  );
  return rowCount ?? 0;
}

/**
 * Moves the watermark to `next` (never backwards: a run presumed dead that finishes late cannot undo
 * a later run's progress — except after a `reset`, which sets it back on purpose) and records when.
 */
export async function advanceWatermark(q: Queryable, next: string, at: Date, reset = false): Promise<void> {
  await q.query(
    `INSERT INTO analytics_rollup_state (singleton, xid_watermark, rolled_up_at) VALUES (true, $1::bigint, $2)
     ON CONFLICT (singleton) DO UPDATE
       SET xid_watermark = CASE WHEN $3 THEN EXCLUDED.xid_watermark
                                ELSE greatest(analytics_rollup_state.xid_watermark, EXCLUDED.xid_watermark) END,
           rolled_up_at = EXCLUDED.rolled_up_at`,
    [next, at, reset],
  );
}
