/**
 * Analytics reads (services/analytics.ts): sums over one organization's 15-minute rollup rows
 * (store/analytics-rollup.ts writes them), each an index range scan on (org_id, bucket_start).
 * Windows arrive aligned to the rollup grain; `since` inclusive, `until` exclusive.
 */
import type { LatencySketchData } from '../lib/latency-sketch.ts';
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

/** Scans per surface in [since, until), surfaces with none left out; count descending, then name. */
export async function surfaceCounts(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
): Promise<{ surface: string; count: number }[]> {
  const { rows } = await q.query<{ surface: string; count: number }>(
    `SELECT e.key AS surface, sum(e.value::int)::bigint AS count
     FROM analytics_buckets b CROSS JOIN LATERAL jsonb_each_text(b.surfaces) e
     WHERE b.org_id = $1 AND b.bucket_start >= $2 AND b.bucket_start < $3
     GROUP BY e.key HAVING sum(e.value::int) > 0 ORDER BY count DESC, surface`,
    [orgId, since, until],
  );
  return rows;
}

/** The `limit` detectors with the most scans in [since, until): count descending, ties by name ascending. */
export async function topDetectorCounts(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<{ detector: string; count: number }[]> {
  const { rows } = await q.query<{ detector: string; count: number }>(
    `SELECT e.key AS detector, sum(e.value::int)::bigint AS count
     FROM analytics_buckets b CROSS JOIN LATERAL jsonb_each_text(b.detectors) e
     WHERE b.org_id = $1 AND b.bucket_start >= $2 AND b.bucket_start < $3
     GROUP BY e.key HAVING sum(e.value::int) > 0 ORDER BY count DESC, e.key COLLATE "C" LIMIT $4`,
    [orgId, since, until, limit],
  );
  return rows;
}

/**
 * The latency sketches of [since, until) merged per `binMs` bin (bucket counts added, extremes taken):
 * only bins with traffic, by time ascending. The merge happens in the database, so only one sketch
 * per bin crosses the wire.
 */
export async function latencyByBin(
  q: Queryable,
  orgId: string,
  since: Date,
  until: Date,
  binMs: number,
): Promise<{ t: number; sketch: LatencySketchData }[]> {
  const { rows } = await q.query<{ t: number; sketch: LatencySketchData }>(
    `WITH r AS (
       SELECT ${BIN} AS t, latency FROM analytics_buckets
       WHERE org_id = $1 AND bucket_start >= $2 AND bucket_start < $3
     ),
     counts AS (
       SELECT t, jsonb_object_agg(key, n) AS buckets
       FROM (
         SELECT r.t, e.key, sum(e.value::bigint) AS n
         FROM r CROSS JOIN LATERAL jsonb_each_text(r.latency->'buckets') e GROUP BY 1, 2
       ) x GROUP BY t
     ),
     per_bin AS (
       SELECT t, (min(latency->>'alpha'))::float8 AS alpha, sum((latency->>'count')::bigint) AS count,
              sum((latency->>'zero')::bigint) AS zero,
              min((latency->>'min')::float8) AS lo, max((latency->>'max')::float8) AS hi
       FROM r GROUP BY t
     )
     SELECT p.t, jsonb_build_object('alpha', p.alpha, 'count', p.count, 'zero', p.zero, 'min', p.lo, 'max', p.hi,
              'buckets', coalesce(c.buckets, '{}'::jsonb)) AS sketch
     FROM per_bin p LEFT JOIN counts c USING (t) WHERE p.count > 0 ORDER BY p.t`,
    [orgId, since, until, binMs],
  );
  return rows;
}
