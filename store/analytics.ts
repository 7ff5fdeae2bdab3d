/**
 * Analytics reads (services/analytics.ts): sums over one organization's 15-minute rollup rows
 * (store/analytics-rollup.ts writes them), each an index range scan on (org_id, bucket_start).
 * Windows arrive aligned to the rollup grain; `since` inclusive, `until` exclusive.
 */
import type { LatencySketchData } from '../lib/latency-sketch.ts';
import type { Grid } from './analytics-rollup.ts';
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

/** Counts by action in [since, until) and in the `prior` window before it ([prior, since)). */
export async function countsWithPrior(
  q: Queryable,
  orgId: string,
  prior: Date,
  since: Date,
  until: Date,
): Promise<{ current: ActionCounts; prior: ActionCounts }> {
  const { rows } = await q.query<Record<string, number>>(
    `SELECT ${SUMS.map((c) => `coalesce(sum(${c}) FILTER (WHERE bucket_start >= $3), 0)::bigint AS ${c}`).join(', ')},
            ${SUMS.map((c) => `coalesce(sum(${c}) FILTER (WHERE bucket_start < $3), 0)::bigint AS prior_${c}`).join(', ')}
     FROM analytics_buckets WHERE org_id = $1 AND bucket_start >= $2 AND bucket_start < $4`,
    [orgId, prior, since, until],
  );
  const r = rows[0]!;
  const pick = (prefix: string) =>
    Object.fromEntries(SUMS.map((c) => [c, r[`${prefix}${c}`]!])) as unknown as ActionCounts;
  return { current: pick(''), prior: pick('prior_') };
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
 * The sums of one of the rollup rows' `{name: scans}` maps over [since, until): names with none left
 * out, count descending, ties by name (bytewise), at most `limit` (null: all).
 */
async function mapCounts(
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

/** Scans per surface in [since, until), surfaces with none left out; count descending, then name. */
export async function surfaceCounts(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
): Promise<{ surface: string; count: number }[]> {
  const rows = await mapCounts(q, 'surfaces', orgId, since, until, null);
  return rows.map((r) => ({ surface: r.name, count: r.count }));
}

/** The `limit` detectors with the most scans in [since, until): count descending, ties by name ascending. */
export async function topDetectorCounts(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<{ detector: string; count: number }[]> {
  const rows = await mapCounts(q, 'detectors', orgId, since, until, limit);
  return rows.map((r) => ({ detector: r.name, count: r.count }));
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
