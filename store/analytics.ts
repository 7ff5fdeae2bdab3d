/**
 * Analytics reads (services/analytics.ts): sums over one organization's 15-minute rollup rows
 * (store/analytics-rollup.ts writes them), each an index range scan on (org_id, bucket_start), and
 * the same sums straight from the scans of a window's partial edge buckets (`edge*`: each range less
 * than one bucket, an id range scan of scans_pkey as the rollup reads a bucket). Rollup windows
 * arrive aligned to the rollup grain; every range is `since` inclusive, `until` exclusive.
 */
import { idFloor } from '../lib/ids.ts';
import type { LatencySketchData } from '../lib/latency-sketch.ts';
import { actionCountsSql, EFFECTIVE_ACTION_SQL, reportingDetectorsSql, type Grid } from './analytics-rollup.ts';
import type { Queryable } from './db.ts';

export interface ActionCounts {
  total: number;
  allowed: number;
  flagged: number;
  warned: number;
  blocked: number;
}

const SUMS = ['total', 'allowed', 'flagged', 'warned', 'blocked'] as const;
const sums = () => SUMS.map((c) => `coalesce(sum(${c}), 0)::bigint AS ${c}`).join(', ');

/** A time range: `since` inclusive, `until` exclusive. */
export interface Range {
  since: Date;
  until: Date;
}

/** Counts by action over the rollup rows in [since, until): one sum, no grouping. */
export async function countsIn(q: Queryable, orgId: string, since: Date, until: Date): Promise<ActionCounts> {
  const { rows } = await q.query<ActionCounts>(
    `SELECT ${sums()} FROM analytics_buckets WHERE org_id = $1 AND bucket_start >= $2 AND bucket_start < $3`,
    [orgId, since, until],
  );
  return rows[0]!;
}

/** The UTC bin of each rollup row as epoch ms (`binMs` divides a day or is a day). */
const BIN = `(extract(epoch FROM date_bin(make_interval(secs => $4::float8 / 1000), bucket_start, 'epoch')) * 1000)::bigint`;

/** Counts by action per `binMs` bin in [since, until): only bins with rollup rows, by time ascending. */
export async function countsByBin(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
  binMs: number,
): Promise<(ActionCounts & { t: number })[]> {
  const { rows } = await q.query<ActionCounts & { t: number }>(
    `SELECT ${BIN} AS t, ${sums()}
     FROM analytics_buckets WHERE org_id = $1 AND bucket_start >= $2 AND bucket_start < $3
     GROUP BY 1 ORDER BY 1`,
    [orgId, since, until, binMs],
  );
  return rows;
}

/**
 * The scans of `ranges` (each inside one rollup bucket), with their effective action: one LATERAL
 * id range scan per range (OFFSET 0 keeps it one, as in rollUpBuckets). Parameters $2–$5.
 */
const EDGE_SCANS = `SELECT sc.* FROM unnest($2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[]) AS r(since, until, id_lo, id_hi)
  CROSS JOIN LATERAL (
    SELECT x.created_at, ${EFFECTIVE_ACTION_SQL} AS action, x.surface, x.findings FROM scans x
    WHERE x.org_id = $1 AND x.id >= r.id_lo AND x.id < r.id_hi AND x.created_at >= r.since AND x.created_at < r.until
    OFFSET 0
  ) sc`;

const edgeParams = (orgId: string, ranges: readonly Range[]) => [
  orgId,
  ranges.map((r) => r.since),
  ranges.map((r) => r.until),
  ranges.map((r) => idFloor('scan', r.since)),
  // a scan's id carries its creation millisecond: every scan before `until` sorts below the next one's floor
  ranges.map((r) => idFloor('scan', new Date(r.until.getTime() + 1))),
];

/** For each of `ranges` (each inside one rollup bucket), whether it holds any scan: one index probe each. */
export async function rangesWithScans(q: Queryable, orgId: string, ranges: readonly Range[]): Promise<boolean[]> {
  if (ranges.length === 0) return [];
  const { rows } = await q.query<{ found: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM scans x
       WHERE x.org_id = $1 AND x.id >= r.id_lo AND x.id < r.id_hi AND x.created_at >= r.since AND x.created_at < r.until
     ) AS found
     FROM unnest($2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[]) WITH ORDINALITY AS r(since, until, id_lo, id_hi, n)
     ORDER BY r.n`,
    edgeParams(orgId, ranges),
  );
  return rows.map((r) => r.found);
}

/** Counts by action per `binMs` bin of the scans in `ranges` (partial edge buckets): only bins with scans. */
export async function edgeCountsByBin(
  q: Queryable,
  orgId: string,
  ranges: readonly Range[],
  binMs: number,
): Promise<(ActionCounts & { t: number })[]> {
  if (ranges.length === 0) return [];
  const { rows } = await q.query<ActionCounts & { t: number }>(
    `SELECT (floor(extract(epoch FROM s.created_at) * 1000 / $6::numeric) * $6::numeric)::bigint AS t,
            count(*)::int AS total, ${actionCountsSql('s.action')}
     FROM (${EDGE_SCANS}) s GROUP BY 1 ORDER BY 1`,
    [...edgeParams(orgId, ranges), binMs],
  );
  return rows.map((r) => ({ ...r, t: Number(r.t) }));
}

/**
 * Scans per surface, or per detector that reported at least one item, in `ranges` (partial edge
 * buckets), as the rollup counts them: names with none left out, in no particular order.
 */
export async function edgeNameCounts(
  q: Queryable,
  column: 'surfaces' | 'detectors',
  orgId: string,
  ranges: readonly Range[],
): Promise<{ name: string; count: number }[]> {
  if (ranges.length === 0) return [];
  const names =
    column === 'surfaces'
      ? `SELECT s.surface AS name FROM (${EDGE_SCANS}) s`
      : `SELECT d.detector AS name FROM (${EDGE_SCANS}) s CROSS JOIN LATERAL (${reportingDetectorsSql('s.findings')}) d`;
  const { rows } = await q.query<{ name: string; count: number }>(
    `SELECT name, count(*)::int AS count FROM (${names}) n GROUP BY name`,
    edgeParams(orgId, ranges),
  );
  return rows;
}

/**
 * The sums of one of the rollup rows' `{name: scans}` maps over [since, until): names with none left
 * out, count descending, ties by name (bytewise), at most `limit` (null: all).
 */
export async function rollupNameCounts(
  q: Queryable,
  column: 'surfaces' | 'detectors',
  orgId: string,
  since: Date,
  until: Date,
  limit: number | null,
): Promise<{ name: string; count: number }[]> {
  const { rows } = await q.query<{ name: string; count: number }>(
    `SELECT e.key AS name, sum(e.value::int)::bigint AS count
     FROM analytics_buckets b CROSS JOIN LATERAL jsonb_each_text(b.${column}) e
     WHERE b.org_id = $1 AND b.bucket_start >= $2 AND b.bucket_start < $3
     GROUP BY e.key HAVING sum(e.value::int) > 0 ORDER BY count DESC, e.key COLLATE "C" LIMIT $4`,
    [orgId, since, until, limit],
  );
  return rows;
}

/**
 * The latency sketch of each bin of the grid in [since, until) with traffic, by time ascending: the
 * 15-minute buckets' own sketches, or the hour and day sketches the rollup pre-merged
 * (analytics_latency), so no request merges sketches. The grid's name is the service's bucket name.
 */
export async function latencySketches(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
  grain: Grid,
): Promise<{ t: number; sketch: LatencySketchData }[]> {
  const { rows } = await q.query<{ t: number; sketch: LatencySketchData }>(
    grain === '15m'
      ? `SELECT (extract(epoch FROM bucket_start) * 1000)::bigint AS t, latency AS sketch FROM analytics_buckets
         WHERE org_id = $1 AND bucket_start >= $2 AND bucket_start < $3 ORDER BY bucket_start`
      : `SELECT (extract(epoch FROM bin_start) * 1000)::bigint AS t, latency AS sketch FROM analytics_latency
         WHERE org_id = $1 AND grain = $4 AND bin_start >= $2 AND bin_start < $3 ORDER BY bin_start`,
    grain === '15m' ? [orgId, since, until] : [orgId, since, until, grain],
  );
  return rows;
}
