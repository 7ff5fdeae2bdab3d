/**
 * Analytics at scale, and the scans write path with and without what analytics added to it.
 *
 *   npm run bench:analytics -- [--scans 10000000] [--days 30] [--requests 200] [--prefill 1000000]
 *                              [--write-batches 1000] [--writers 4] [--rounds 3] [--keep] [--json]
 *
 * In a fresh database `cf_bench_analytics` on the local PostgreSQL (or DATABASE_URL), migrated:
 * 1. seeds `--scans` scans for one organization over the last `--days` days (plus two small
 *    organizations), by SQL in 50,000-row transactions (benchmarks/analytics-data.ts);
 * 2. times the rollup job (jobs/rollup-analytics.ts `run`): the first run over everything, a run
 *    with nothing new, runs after 30 s of traffic at the organization's own rate and at 1,000
 *    scans/s (written by insertScans in batches of 64, like the group-commit writer), and a run after
 *    late scans scattered over the whole period;
 * 3. starts the service (server/main.ts, jobs off) and sends each analytics view `--requests`
 *    sequential requests after 20 of warm-up; 400-day windows go to a second organization whose
 *    rollup rows are the first's, repeated back in time (the endpoints read rollups, not scans);
 * 4. the write path: insertScans (64 rows a batch, `--writers` at once, `--write-batches` batches per
 *    variant and round, `--rounds` rounds, variants interleaved) into scratch copies of the scans
 *    table prefilled with the newest `--prefill` scans: as migrated, without the ingest_xid index
 *    (the baseline of the ratios), and partitioned by id range per day and per month.
 * Writes benchmarks/results/analytics-<timestamp>.json; drops the database unless --keep.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { decodeTime } from 'ulid';
import * as rollupAnalytics from '../jobs/rollup-analytics.ts';
import type { JobContext } from '../jobs/job.ts';
import { loadConfig } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { buildKeyring } from '../lib/crypto.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics } from '../lib/metrics.ts';
import { createApiKey } from '../services/api-keys.ts';
import { LocalInvalidationBus } from '../services/invalidation-bus.ts';
import { createOrganization } from '../services/organizations.ts';
import { latencyBinsOf, rollUpLatencyBins } from '../store/analytics-rollup.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { insertScans, type ScanRow } from '../store/scans.ts';
import { liveScanRow, measureWritePath, seedScans } from './analytics-data.ts';
import { percentilesMs } from './measure.ts';
import { parseCli } from './cli.ts';
import { benchmarkDatabase } from './database.ts';
import { machineInfo, ROOT } from './processes.ts';
import { startService } from './service.ts';

const USAGE =
  'usage: npm run bench:analytics -- [--scans N] [--days D] [--requests N] [--prefill N] [--write-batches N] [--writers N] [--rounds N] [--keep] [--json]';
const { values: args, positiveInt } = parseCli(USAGE, {
  scans: { type: 'string', default: '10000000' },
  days: { type: 'string', default: '30' },
  requests: { type: 'string', default: '200' },
  prefill: { type: 'string', default: '1000000' },
  'write-batches': { type: 'string', default: '1000' },
  writers: { type: 'string', default: '4' },
  rounds: { type: 'string', default: '3' },
  keep: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
});
const N = positiveInt('scans', args.scans);
const DAYS = positiveInt('days', args.days);
const REQUESTS = positiveInt('requests', args.requests);
const PREFILL = Math.min(positiveInt('prefill', args.prefill), N);
const WRITE_BATCHES = positiveInt('write-batches', args['write-batches']);
const WRITERS = positiveInt('writers', args.writers);
const ROUNDS = positiveInt('rounds', args.rounds);
const DAY_MS = 86_400_000;
const DB_NAME = 'cf_bench_analytics';
/** The service's key-signing secret (benchmarks/service.ts starts it with this one). */
const SECRET = 'benchmark-secret-key-0123456789abcdef';
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);
const seconds = (t0: number) => Math.round(performance.now() - t0) / 1000;

const url = await benchmarkDatabase(DB_NAME);
const db = createPool(url, 4, () => undefined);
const report: Record<string, unknown> = {
  when: new Date().toISOString(),
  machine: machineInfo(),
  command: `npm run bench:analytics -- ${process.argv.slice(2).join(' ')}`.trim(),
  settings: {
    scans: N,
    days: DAYS,
    requests: REQUESTS,
    prefill: PREFILL,
    write_batches: WRITE_BATCHES,
    writers: WRITERS,
    rounds: ROUNDS,
  },
};
report.postgres = (await db.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
await migrate(db);

// 1. Seed.
const now = Date.now();
const main = await createOrganization(db, systemClock, 'Analytics bench');
const small = [
  await createOrganization(db, systemClock, 'Small A'),
  await createOrganization(db, systemClock, 'Small B'),
];
const SMALL_SCANS = Math.min(20_000, Math.ceil(N / 50));
const t0 = performance.now();
let last = 0;
await seedScans(
  db,
  { orgId: main.id, count: N, startMs: now - DAYS * DAY_MS, spanMs: DAYS * DAY_MS, firstRow: 0 },
  50_000,
  2,
  (done) => {
    if (performance.now() - last < 5000) return;
    last = performance.now();
    say(`  seeded ${done.toLocaleString('en')} / ${N.toLocaleString('en')} (${Math.round(done / seconds(t0))} rows/s)`);
  },
);
for (const [i, o] of small.entries())
  await seedScans(
    db,
    {
      orgId: o.id,
      count: SMALL_SCANS,
      startMs: now - DAYS * DAY_MS,
      spanMs: DAYS * DAY_MS,
      firstRow: N + i * SMALL_SCANS,
    },
    50_000,
    1,
    () => undefined,
  );
const seedS = seconds(t0);
const v0 = performance.now();
await db.query('VACUUM ANALYZE scans');
const size = (await db.query<{ s: string }>(`SELECT pg_size_pretty(pg_total_relation_size('scans')) AS s`)).rows[0]!.s;
report.seed = {
  scans: N + 2 * SMALL_SCANS,
  seconds: seedS,
  rows_per_s: Math.round((N + 2 * SMALL_SCANS) / seedS),
  vacuum_analyze_s: seconds(v0),
  scans_table_size: size,
};
say(`seeded ${N} + 2×${SMALL_SCANS} scans in ${seedS} s; VACUUM ANALYZE ${seconds(v0)} s; scans ${size}`);

// The id's time part is created_at (what the rollup's id ranges rely on): checked on the oldest and newest ids.
const { rows: ends } = await db.query<{ id: string; created_at: Date }>(
  `(SELECT id, created_at FROM scans WHERE org_id = $1 ORDER BY id LIMIT 500)
   UNION ALL (SELECT id, created_at FROM scans WHERE org_id = $1 ORDER BY id DESC LIMIT 500)`,
  [main.id],
);
for (const r of ends)
  if (decodeTime(r.id.slice(5)) !== r.created_at.getTime())
    throw new Error(`${r.id} is not of ${r.created_at.toISOString()}`);

// 2. The rollup job.
const config = loadConfig({ ...process.env, DATABASE_URL: url, SECRET_KEY: SECRET });
const ctx: JobContext = {
  db,
  clock: systemClock,
  logger: createLogger('silent'),
  metrics: createMetrics(false),
  config,
  touch: async () => undefined,
};
const rollups: { run: string; scans_added: number; buckets: number; seconds: number }[] = [];
async function rollUp(run: string, added: number): Promise<void> {
  const started = performance.now();
  const r = await rollupAnalytics.run(ctx);
  rollups.push({ run, scans_added: added, buckets: r.buckets, seconds: seconds(started) });
  say(`rollup ${run}: ${r.buckets} buckets in ${seconds(started)} s`);
}
/** Writes `count` scans as the group-commit writer does (64 a statement), at `at(i)`. */
async function write(count: number, at: (i: number) => number): Promise<void> {
  for (let i = 0; i < count; i += 64) {
    const batch: ScanRow[] = [];
    for (let k = i; k < Math.min(count, i + 64); k++) batch.push(liveScanRow(main.id, k, at(k)));
    await insertScans(db, batch);
  }
}
await rollUp('first (everything)', N + 2 * SMALL_SCANS);
await rollUp('nothing new', 0);
const orgRate = Math.max(1, Math.round((N / (DAYS * 86_400)) * 30));
for (let i = 1; i <= 3; i++) {
  await write(orgRate, () => Date.now());
  await rollUp(`steady #${i}: 30 s at the org's rate`, orgRate);
}
await write(30_000, () => Date.now());
await rollUp('heavy: 30 s at 1,000 scans/s', 30_000);
await write(100, (k) => now - Math.floor((((k * 7919) % 1000) / 1000) * DAYS * DAY_MS));
await rollUp('late: 100 scans scattered over the period', 100);
const check = await db.query<{ scans: string; rolled: string }>(
  `SELECT (SELECT count(*) FROM scans WHERE org_id = $1)::text AS scans,
          (SELECT coalesce(sum(total), 0) FROM analytics_buckets WHERE org_id = $1)::text AS rolled`,
  [main.id],
);
report.rollup = {
  runs: rollups,
  org_scans: Number(check.rows[0]!.scans),
  org_rollup_total: Number(check.rows[0]!.rolled),
};
if (check.rows[0]!.scans !== check.rows[0]!.rolled)
  throw new Error(`rollup total ${check.rows[0]!.rolled} ≠ scans ${check.rows[0]!.scans}`);

// 3. The endpoints. The 400-day organization: the main one's rollup rows, repeated every DAYS days back.
const long = await createOrganization(db, systemClock, 'Analytics bench 400 days');
await db.query(
  `INSERT INTO analytics_buckets (org_id, bucket_start, total, allowed, flagged, warned, blocked, surfaces, detectors, latency)
   SELECT $2, b.bucket_start - k * make_interval(days => $3::int), total, allowed, flagged, warned, blocked, surfaces, detectors, latency
   FROM analytics_buckets b, generate_series(0, ceil(400.0 / $3)::int) k
   WHERE b.org_id = $1 AND b.bucket_start - k * make_interval(days => $3::int) >= now() - interval '401 days'
   ON CONFLICT DO NOTHING`,
  [main.id, long.id, DAYS],
);
// Its hour and day latency sketches, merged from the copied buckets as the rollup job would.
const copied = await db.query<{ start: string }>(
  `SELECT (extract(epoch FROM bucket_start) * 1000)::bigint::text AS start FROM analytics_buckets WHERE org_id = $1`,
  [long.id],
);
const longBins = latencyBinsOf(copied.rows.map((r) => ({ orgId: long.id, start: Number(r.start) })));
for (let i = 0; i < longBins.length; i += 100) await rollUpLatencyBins(db, longBins.slice(i, i + 100));
const keyDeps = {
  db,
  clock: systemClock,
  keyring: buildKeyring(Buffer.from(SECRET, 'utf8')),
  revocations: new LocalInvalidationBus(),
  defaultTtlDays: 1,
};
const keyFor = async (orgId: string) =>
  (
    await createApiKey(
      keyDeps,
      orgId,
      { name: 'bench', scopes: ['analytics:read'], environment: 'test' },
      { id: 'bench', requestId: null },
    )
  ).secret;
const keys = { main: await keyFor(main.id), long: await keyFor(long.id) };

const iso = (ms: number) => new Date(ms).toISOString();
const until = iso(Date.now());
const since = (days: number) => iso(Date.now() - days * DAY_MS);
const views: { name: string; path: string; key: 'main' | 'long'; requests: number; target?: number }[] = [
  {
    name: `summary ${DAYS}d`,
    path: `summary?since=${since(DAYS)}&until=${until}`,
    key: 'main',
    requests: REQUESTS,
    target: 100,
  },
  {
    name: `timeseries ${DAYS}d 1h`,
    path: `timeseries?since=${since(DAYS)}&until=${until}&bucket=1h`,
    key: 'main',
    requests: REQUESTS,
    target: 100,
  },
  {
    name: `timeseries ${DAYS}d 1d`,
    path: `timeseries?since=${since(DAYS)}&until=${until}&bucket=1d`,
    key: 'main',
    requests: REQUESTS,
    target: 100,
  },
  {
    name: 'timeseries 7d 15m',
    path: `timeseries?since=${since(7)}&until=${until}&bucket=15m`,
    key: 'main',
    requests: REQUESTS,
  },
  { name: `surfaces ${DAYS}d`, path: `surfaces?since=${since(DAYS)}&until=${until}`, key: 'main', requests: REQUESTS },
  {
    name: `detectors ${DAYS}d`,
    path: `detectors?since=${since(DAYS)}&until=${until}`,
    key: 'main',
    requests: REQUESTS,
  },
  {
    name: `latency ${DAYS}d 1h`,
    path: `latency?since=${since(DAYS)}&until=${until}&bucket=1h`,
    key: 'main',
    requests: REQUESTS,
  },
  {
    name: `latency ${DAYS}d 1d`,
    path: `latency?since=${since(DAYS)}&until=${until}&bucket=1d`,
    key: 'main',
    requests: REQUESTS,
  },
  { name: 'summary 400d', path: `summary?since=${since(400)}&until=${until}`, key: 'long', requests: REQUESTS },
  {
    name: 'timeseries 400d 1d',
    path: `timeseries?since=${since(400)}&until=${until}&bucket=1d`,
    key: 'long',
    requests: REQUESTS,
  },
  {
    name: 'latency 400d 1d',
    path: `latency?since=${since(400)}&until=${until}&bucket=1d`,
    key: 'long',
    requests: Math.min(REQUESTS, 50),
  },
];
const service = await startService(
  { kind: `local ${DB_NAME}`, env: { DATABASE_URL: url, JOBS_ENABLED: 'false' }, dispose: async () => undefined },
  null,
);
const endpoints: Record<string, unknown>[] = [];
const targets: { name: string; target: string; value: number; met: boolean }[] = [];
try {
  for (const v of views) {
    const get = async () => {
      const started = performance.now();
      const r = await fetch(`http://127.0.0.1:${service.port}/v1/analytics/${v.path}`, {
        headers: { authorization: `Bearer ${keys[v.key]}` },
      });
      const body = (await r.json()) as { points?: unknown[]; items?: unknown[]; total?: number };
      if (r.status !== 200) throw new Error(`${v.name}: ${r.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, body };
    };
    for (let i = 0; i < 20; i++) await get();
    const ms: number[] = [];
    let shape = '';
    for (let i = 0; i < v.requests; i++) {
      const { ms: t, body } = await get();
      ms.push(t);
      shape = body.points
        ? `${body.points.length} points`
        : body.items
          ? `${body.items.length} items`
          : `total ${body.total}`;
    }
    const p = percentilesMs(ms);
    endpoints.push({ view: v.name, answer: shape, ...p });
    say(
      `  ${v.name.padEnd(22)} ${shape.padEnd(14)} p50 ${p.p50_ms}  p95 ${p.p95_ms}  p99 ${p.p99_ms}  max ${p.max_ms} ms`,
    );
    if (v.target)
      targets.push({ name: `${v.name} p95`, target: `≤ ${v.target} ms`, value: p.p95_ms, met: p.p95_ms <= v.target });
  }
} finally {
  await service.stop();
}
report.endpoints = endpoints;
report.targets = targets;

// 4. The write path.
report.write_path = await measureWritePath(
  db,
  url,
  main.id,
  { prefill: PREFILL, batches: WRITE_BATCHES, writers: WRITERS, rounds: ROUNDS },
  say,
);
await db.end();

if (!args.keep && !process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.end();
}

const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `analytics-${String(report.when).replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const out = ['', 'write path (ratios to no_xid_index, this run)'];
  for (const r of report.write_path as {
    variant: string;
    rows_per_s: number;
    batch: { p50_ms: number; p95_ms: number };
    vs_baseline: Record<string, number>;
  }[])
    out.push(
      `  ${r.variant.padEnd(20)} ${r.rows_per_s} rows/s (×${r.vs_baseline.rows_per_s})  batch p50 ${r.batch.p50_ms} ms (×${r.vs_baseline.batch_p50})  p95 ${r.batch.p95_ms} ms (×${r.vs_baseline.batch_p95})`,
    );
  out.push('targets');
  for (const t of targets)
    out.push(`  ${t.met ? 'met    ' : 'not met'}  ${t.name}: ${t.value} ms (wanted ${t.target})`);
  out.push(`written ${path.relative(ROOT, file)}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(0);
