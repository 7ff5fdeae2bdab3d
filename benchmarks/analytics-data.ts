/**
 * Data for `npm run bench:analytics` (benchmarks/analytics.ts): millions of synthetic scans written
 * by SQL alone (INSERT … SELECT generate_series, ids encoded in SQL), scans shaped like the group-
 * commit writer's in JS for the write path, and the scratch copies of the scans table the write path
 * is measured on (as migrated, without the ingest_xid index, partitioned by id range).
 */
import { newTimedId } from '../lib/ids.ts';
import { createPool, type Db } from '../store/db.ts';
import { insertScans, type ScanRow } from '../store/scans.ts';
import { percentilesMs } from './measure.ts';
import { round3 } from './rounds.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DAY_MS = 86_400_000;

const DETECTORS = ['prompt_injection', 'pii', 'toxicity', 'sensitive_path'] as const;
const ITEM = { owasp_llm: [], owasp_agentic: [], mitre_atlas: [] };
const finding = (detector: string) => ({
  detector,
  items: [
    {
      text: 'x@y.z',
      label: detector === 'pii' ? 'EMAIL_ADDRESS' : 'MATCH',
      confidence: 0.93,
      source: 'regex',
      span: [0, 5],
    },
  ],
  frameworks: ITEM,
});
/**
 * The findings a seeded scan can carry, indexed as the seed statement picks them: none; one
 * detector (1–4); that detector and a second (5–8).
 */
const FINDING_SETS: unknown[][] = [
  [],
  ...DETECTORS.map((d) => [finding(d)]),
  ...DETECTORS.map((d) => [finding(d), finding(d === 'pii' ? 'prompt_injection' : 'pii')]),
];

/** The ULID time part (10 Crockford characters) of the bigint ms column `ms`, as SQL. */
const ulidTimeSql = (ms: string) =>
  Array.from({ length: 10 }, (_, k) => `substr('${CROCKFORD}', ((${ms} >> ${45 - 5 * k}) & 31)::int + 1, 1)`).join(
    ' || ',
  );

/**
 * One seed statement: scans `from`..`to` (global row numbers; the id's random part is the row number
 * in hex, so ids never collide) of `count`, spread evenly with jitter over [startMs, startMs + spanMs).
 * Effective actions about 90 % allowed / 4 % warned / 4 % flagged / 2 % blocked, 5 % of them under an
 * observe-mode policy (action allowed, observed_action the effective one); four surfaces; 0–2
 * detectors with items (allowed scans mostly none); latency lognormal around 6 ms.
 */
const SEED_SQL = `
INSERT INTO scans (org_id, id, created_at, kind, surface, tier, agent_id, session_id, mcp_server, trace_id,
                   end_user_id_hash, action, decision, findings, scores, content_stored, content, content_expires_at,
                   content_chars, latency_ms, api_key_id, request_id, mcp_tools, observed_action)
SELECT $1, 'scan_' || ${ulidTimeSql('x.ms')} || upper(lpad(to_hex(x.g), 16, '0')),
       'epoch'::timestamptz + x.ms * interval '1 millisecond', 'content', x.surface, 'fast',
       CASE WHEN x.r3 < 0.5 THEN 'agent-' || (x.g % 20) END, 's-' || (x.g % 5000),
       CASE WHEN x.surface = 'tool_result' THEN 'files' END, NULL, NULL,
       CASE WHEN x.observe THEN 'allowed' ELSE x.eff END,
       jsonb_build_object('action', CASE WHEN x.observe THEN 'allowed' ELSE x.eff END, 'reason', 'score_threshold',
                          'policy_id', NULL, 'policy_revision_id', NULL, 'matched_rule_id', NULL, 'triggering_finding', NULL),
       ($5::jsonb[])[CASE WHEN x.eff = 'allowed' AND x.r3 >= 0.08 THEN 1
                          ELSE 2 + least(3, floor(x.r4 * 4)::int) + CASE WHEN x.eff <> 'allowed' AND x.r3 >= 0.7 THEN 4 ELSE 0 END END],
       jsonb_build_object('prompt_injection', round(x.r4::numeric, 3), 'pii', round(x.r3::numeric, 3), 'toxicity', 0.01, 'sensitive_path', 0),
       false, NULL, NULL, (x.r2 * 4000)::int,
       exp(ln(6) + 0.5 * sqrt(-2 * ln(1 - x.r5)) * cos(2 * pi() * x.r6))::real,
       NULL, NULL, NULL, CASE WHEN x.observe THEN x.eff END
FROM (
  SELECT g, ($2::bigint + floor((g - $3::bigint + random()) * $6::float8))::bigint AS ms,
         CASE WHEN r1 < 0.90 THEN 'allowed' WHEN r1 < 0.94 THEN 'warned' WHEN r1 < 0.98 THEN 'flagged' ELSE 'blocked' END AS eff,
         CASE WHEN r2 < 0.5 THEN 'user_message' WHEN r2 < 0.75 THEN 'assistant_output' WHEN r2 < 0.9 THEN 'tool_result' ELSE 'document' END AS surface,
         random() < 0.05 AS observe, r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6
  FROM (SELECT g, random() AS r1, random() AS r2 FROM generate_series($7::bigint, $4::bigint) g) s
) x`;

export interface SeedPlan {
  orgId: string;
  count: number;
  startMs: number;
  spanMs: number;
  /** The first global row number (ids of every organization of a run must differ). */
  firstRow: number;
}

/**
 * Seeds `plan.count` scans in statements of `chunk` rows, each its own transaction (so `ingest_xid`
 * varies as in production), `parallel` statements at a time; `progress` gets the rows written so far.
 */
export async function seedScans(
  db: Db,
  plan: SeedPlan,
  chunk: number,
  parallel: number,
  progress: (done: number) => void,
): Promise<void> {
  const step = plan.spanMs / plan.count;
  const sets = FINDING_SETS.map((s) => JSON.stringify(s));
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < plan.count) {
      const from = next;
      const rows = Math.min(chunk, plan.count - from);
      next += rows;
      const first = plan.firstRow + from;
      // $3: the plan's first row (times count from it); the series runs $7..$4.
      await db.query(SEED_SQL, [plan.orgId, plan.startMs, plan.firstRow, first + rows - 1, sets, step, first]);
      done += rows;
      progress(done);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** A scan row as the scan service stores it, minted now: the write path's rows (about 1 in 10 not allowed). */
export function liveScanRow(orgId: string, i: number, at = Date.now()): ScanRow {
  const blocked = i % 10 === 9;
  const action = blocked ? 'blocked' : 'allowed';
  return {
    org_id: orgId,
    id: newTimedId('scan', at),
    created_at: new Date(at),
    kind: 'content',
    surface: ['user_message', 'assistant_output', 'tool_result', 'document'][i % 4]!,
    tier: 'fast',
    agent_id: i % 2 ? `agent-${i % 20}` : null,
    session_id: `s-${i % 5000}`,
    mcp_server: null,
    trace_id: null,
    end_user_id_hash: null,
    action,
    decision: {
      action,
      reason: 'score_threshold',
      policy_id: null,
      policy_revision_id: null,
      matched_rule_id: null,
      triggering_finding: null,
    },
    findings: (FINDING_SETS[blocked ? 1 + (i % 4) : 0] ?? []) as unknown[],
    scores: { prompt_injection: blocked ? 0.97 : 0.02, pii: 0, toxicity: 0.01, sensitive_path: 0 },
    content_stored: false,
    content: null,
    content_expires_at: null,
    content_chars: 1000,
    latency_ms: 2 + (i % 7),
    api_key_id: null,
    request_id: null,
    mcp_tools: null,
    observed_action: null,
  };
}

/** The write-path variants: a schema each, holding a table named `scans` (insertScans runs unchanged on its search_path). */
export const WRITE_VARIANTS = {
  /** The scans table as migrated: the ingest_xid column and its index. */
  migrated: { partition: null, xidIndex: true },
  /** The baseline: the same without the ingest_xid index. */
  no_xid_index: { partition: null, xidIndex: false },
  /** PARTITION BY RANGE (id), one partition per UTC day; every index of the migrated table. */
  partitioned_daily: { partition: 'day', xidIndex: true },
  /** The same with one partition per UTC month. */
  partitioned_monthly: { partition: 'month', xidIndex: true },
} as const;
export type WriteVariant = keyof typeof WRITE_VARIANTS;

/** The schema holding a variant's `scans`; every bench schema of this database starts `wp_`. */
export const variantSchema = (v: WriteVariant) => `wp_${v}`;

/** The id bound of a UTC instant (idFloor's shape: the ULID time, then zeros). */
const idBound = (ms: number) => `scan_${ulidTime(ms)}0000000000000000`;
function ulidTime(ms: number): string {
  let out = '';
  for (let k = 9; k >= 0; k--) out += CROCKFORD[Math.floor(ms / 2 ** (5 * k)) % 32];
  return out;
}

/** Partition bounds (UTC day or month starts) covering [fromMs, toMs). */
function partitionBounds(unit: 'day' | 'month', fromMs: number, toMs: number): number[] {
  const bounds: number[] = [];
  const d = new Date(fromMs);
  let t = unit === 'day' ? Math.floor(fromMs / DAY_MS) * DAY_MS : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  while (t < toMs) {
    bounds.push(t);
    const n = new Date(t);
    t = unit === 'day' ? t + DAY_MS : Date.UTC(n.getUTCFullYear(), n.getUTCMonth() + 1, 1);
  }
  bounds.push(t);
  return bounds;
}

/**
 * Builds `variant`'s scratch `scans`: the migrated table's columns, defaults and checks, filled with
 * the newest `prefill` scans of `orgId`, then its indexes (copied from public.scans'
 * definitions), primary key and organization foreign key, then VACUUM ANALYZE. Partitioned
 * variants get partitions from the oldest prefilled day (or month) to two days from now.
 */
export async function buildVariant(
  db: Db,
  variant: WriteVariant,
  orgId: string,
  prefill: number,
): Promise<{ partitions: number }> {
  const spec = WRITE_VARIANTS[variant];
  const schema = variantSchema(variant);
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.query(`CREATE SCHEMA ${schema}`);
  const like = `(LIKE public.scans INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`;
  let partitions = 0;
  if (spec.partition === null) await db.query(`CREATE TABLE ${schema}.scans ${like}`);
  else {
    // The column's own collation: a primary key must use the partition key's (RANGE (id COLLATE "C") is
    // refused while id has the database default); bounds compare as ULIDs under a C-ordered default.
    await db.query(`CREATE TABLE ${schema}.scans ${like} PARTITION BY RANGE (id)`);
    const { rows } = await db.query<{ lo: string }>(
      `SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint::text AS lo
       FROM (SELECT created_at FROM public.scans WHERE org_id = $1 ORDER BY id DESC LIMIT $2) s`,
      [orgId, prefill],
    );
    const bounds = partitionBounds(spec.partition, Number(rows[0]!.lo), Date.now() + 2 * DAY_MS);
    for (let i = 0; i + 1 < bounds.length; i++, partitions++) {
      const name = `scans_${new Date(bounds[i]!).toISOString().slice(0, 10).replace(/-/g, '')}`;
      await db.query(
        `CREATE TABLE ${schema}.${name} PARTITION OF ${schema}.scans FOR VALUES FROM ('${idBound(bounds[i]!)}') TO ('${idBound(bounds[i + 1]!)}')`,
      );
    }
  }
  // The newest scans of the seeded organization: an append-shaped history.
  await db.query(`INSERT INTO ${schema}.scans SELECT * FROM public.scans WHERE org_id = $1 ORDER BY id DESC LIMIT $2`, [
    orgId,
    prefill,
  ]);
  const { rows: defs } = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'scans' AND indexname <> 'scans_pkey'`,
  );
  for (const d of defs) {
    if (!spec.xidIndex && d.indexname === 'scans_ingest_xid_idx') continue;
    await db.query(d.indexdef.replace(' ON public.scans ', ` ON ${schema}.scans `));
  }
  await db.query(`ALTER TABLE ${schema}.scans ADD PRIMARY KEY (org_id, id)`);
  await db.query(
    `ALTER TABLE ${schema}.scans ADD FOREIGN KEY (org_id) REFERENCES public.organizations (id) ON DELETE CASCADE`,
  );
  await db.query(`VACUUM ANALYZE ${schema}.scans`);
  return { partitions };
}

export interface WritePathOptions {
  prefill: number;
  /** Batches of 64 per variant and round. */
  batches: number;
  /** Batches in flight at once (the group-commit writers of several processes). */
  writers: number;
  rounds: number;
}

const secondsSince = (t0: number) => Math.round(performance.now() - t0) / 1000;

/**
 * insertScans throughput and per-batch latency on each write variant, prefilled with `o.prefill`
 * scans of `orgId`; variants interleaved in `o.rounds` rounds so drift on a shared machine hits all
 * alike. Ratios are to `no_xid_index` of the same run.
 */
export async function measureWritePath(
  db: Db,
  url: string,
  orgId: string,
  o: WritePathOptions,
  say: (s: string) => void,
) {
  const variants = Object.keys(WRITE_VARIANTS) as WriteVariant[];
  const built: Record<string, unknown> = {};
  for (const v of variants) {
    const started = performance.now();
    const { partitions } = await buildVariant(db, v, orgId, o.prefill);
    built[v] = { partitions, build_s: secondsSince(started) };
    say(
      `write path: ${v} prefilled with ${o.prefill} scans${partitions ? ` in ${partitions} partitions` : ''} (${secondsSince(started)} s)`,
    );
  }
  const pools = new Map<WriteVariant, Db>(
    variants.map((v) => [
      v,
      createPool(
        `${url}?options=${encodeURIComponent(`-c search_path=${variantSchema(v)},public`)}`,
        o.writers,
        () => undefined,
      ),
    ]),
  );
  const perVariant = new Map<WriteVariant, { batchMs: number[]; rows: number; s: number }[]>(
    variants.map((v) => [v, []]),
  );
  let serial = 0;
  for (let round = 1; round <= o.rounds; round++) {
    for (const v of variants) {
      const pool = pools.get(v)!;
      const batchMs: number[] = [];
      let next = 0;
      const started = performance.now();
      const writer = async () => {
        while (next++ < o.batches) {
          const rows = Array.from({ length: 64 }, () => liveScanRow(orgId, serial++));
          const b0 = performance.now();
          await insertScans(pool, rows);
          batchMs.push(performance.now() - b0);
        }
      };
      await Promise.all(Array.from({ length: o.writers }, writer));
      const s = (performance.now() - started) / 1000;
      perVariant.get(v)!.push({ batchMs, rows: o.batches * 64, s });
      const p = percentilesMs(batchMs);
      say(
        `  round ${round} ${v.padEnd(20)} ${Math.round((o.batches * 64) / s)} rows/s  batch p50 ${p.p50_ms}  p95 ${p.p95_ms} ms`,
      );
    }
  }
  for (const p of pools.values()) await p.end();
  const writeRows = variants.map((v) => {
    const runs = perVariant.get(v)!;
    const all = percentilesMs(runs.flatMap((r) => r.batchMs));
    const rowsPerS = runs.map((r) => Math.round(r.rows / r.s));
    return {
      variant: v,
      ...(built[v] as object),
      rows_per_s_by_round: rowsPerS,
      rows_per_s: Math.round(runs.reduce((a, r) => a + r.rows, 0) / runs.reduce((a, r) => a + r.s, 0)),
      batch: all,
    };
  });
  const base = writeRows.find((r) => r.variant === 'no_xid_index')!;
  return writeRows.map((r) => ({
    ...r,
    vs_baseline: {
      rows_per_s: round3(r.rows_per_s / base.rows_per_s),
      batch_p50: round3(r.batch.p50_ms / base.batch.p50_ms),
      batch_p95: round3(r.batch.p95_ms / base.batch.p95_ms),
    },
  }));
}
