/**
 * Scaling on paper, with measured inputs (issue 40, item 6): what one scan costs every part of the
 * stack, measured on a stack of our own, and the capacity model docs/scaling.md draws from it.
 *
 *   npm run bench:scaling -- [--tier fast,auto,accurate] [--duration S] [--warmup S] [--connections N]
 *                            [--webhooks N] [--backlog N] [--rollup-scans N] [--settle S] [--json]
 *                            [--assume node_cores=32,deliveries_per_scan=0.5,…]
 *   npm run bench:scaling -- --from A.json [--assume …]     (the model again over a saved report)
 *   npm run bench:scaling -- --spread A.json,B.json[,…]     (medians and spreads of earlier runs)
 *
 * Starts a private PostgreSQL cluster and a private Redis (benchmarks/private-stack.ts: temporary
 * directories, free ports), an HTTPS webhook receiver, and the compiled service (`node
 * dist/app/server.mjs`; run `npm run build` first) against them with JOBS_ENABLED=false, so no
 * scheduled job runs inside a measured window. Then:
 *   1. per tier (default fast, auto, accurate): the realistic mix (mix-fixtures.ts, every body
 *      unique) through autocannon for --warmup s, then --duration s measured. Per stored scan:
 *      service CPU (its process tree, every thread), PostgreSQL CPU (the postmaster's tree, reaped
 *      children included), Redis CPU (INFO cpu), WAL bytes (pg_current_wal_lsn), transactions and
 *      tuples written (pg_stat_database), Redis commands (INFO commandstats) and table + index
 *      growth (pg_total_relation_size per table);
 *   2. webhook fan-out: --webhooks webhooks subscribed to every scan event, the first tier's load
 *      again, measured until every delivery has been sent; the difference to step 1 per delivery
 *      (enqueue in the scan's transaction, send, record); then --backlog deliveries enqueued at once
 *      with no scans: the pump alone (its service CPU per delivery is what the model uses: the
 *      difference above is within the noise of the scan path's CPU);
 *   3. the analytics rollup (jobs/rollup-analytics.ts `run`, in this process on the private
 *      database, the service idle): --rollup-scans scans seeded into one past 15-minute bucket,
 *      then the first run (every bucket) and a run after 1,000 late scans in that bucket (it
 *      recomputes the bucket whole): scans rolled up per second of wall time and of PostgreSQL CPU;
 *   4. the capacity model (scaling-model.ts) at 1k, 10k and 100k scans/s per tier.
 * Statistics are read --settle s after the load stops (PostgreSQL flushes an idle backend's
 * counters within 10 s). Writes benchmarks/results/scaling-<timestamp>.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
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
import { bodySource } from './body-source.ts';
import { parseCli } from './cli.ts';
import { formatSummary, measure, type RunSummary } from './measure.ts';
import { mixTemplates } from './mix-fixtures.ts';
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './private-stack.ts';
import { freePort, machineInfo, ROOT, start, stop, treeCpuSeconds, waitUntilIdle } from './processes.ts';
import { bootstrapKey, METRICS_TOKEN, SECRET } from './service.ts';
import {
  busiestRedisCpuPerCommand,
  commitFit,
  DEFAULT_ASSUMPTIONS,
  limits,
  lsnBytes,
  parseCommandStats,
  parseRedisCpu,
  deliveryCost,
  perDelivery,
  plan,
  rollupRate,
  spread,
  unitCost,
  type Inputs,
  type RollupRun,
  type StackCounters,
  type UnitCost,
} from './scaling-model.ts';

const USAGE =
  'usage: npm run bench:scaling -- [--tier fast,auto,accurate] [--duration S] [--warmup S] [--connections N] [--webhooks N] [--backlog N] [--rollup-scans N] [--settle S] [--assume k=v,…] [--json] | --from A.json [--assume k=v,…] | --spread A.json,B.json[,…]';
const {
  values: args,
  fail,
  positiveInt,
} = parseCli(USAGE, {
  tier: { type: 'string', default: 'fast,auto,accurate' },
  duration: { type: 'string', default: '30' },
  warmup: { type: 'string', default: '5' },
  connections: { type: 'string', default: '32' },
  webhooks: { type: 'string', default: '2' },
  backlog: { type: 'string', default: '5000' },
  'rollup-scans': { type: 'string', default: '300000' },
  settle: { type: 'string', default: '11' },
  // The capacity model again over a saved report (e.g. with other --assume values), measuring nothing.
  from: { type: 'string' },
  // Assumptions of the model: key=value pairs over scaling-model.ts DEFAULT_ASSUMPTIONS.
  assume: { type: 'string' },
  // Comma-separated report files: print medians and spreads of earlier runs instead of measuring.
  spread: { type: 'string' },
  json: { type: 'boolean', default: false },
});
const RATES = [1_000, 10_000, 100_000];
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The report's shape (also what --spread reads back). */
interface ScalingReport {
  when: string;
  command: string;
  machine: ReturnType<typeof machineInfo> & { loadavg_1m_at_start: number; postgres: string; redis: string };
  settings: Record<string, unknown>;
  tiers: Record<string, { load: RunSummary; scans: number; per_scan: UnitCost }>;
  webhooks: {
    tier: string;
    webhooks: number;
    scans: number;
    deliveries: number;
    drain_after_load_s: number;
    per_scan: UnitCost;
    per_delivery: UnitCost;
    /** The pump alone draining a backlog (no scans): what sending one delivery costs. */
    backlog: { deliveries: number; seconds: number; per_s: number; per_delivery: UnitCost } | null;
  } | null;
  rollup: { runs: (RollupRun & ReturnType<typeof rollupRate>)[] } | null;
  assumptions: typeof DEFAULT_ASSUMPTIONS;
  plans: Record<string, { plans: ReturnType<typeof plan>[]; limits: ReturnType<typeof limits> }>;
  /** PostgreSQL CPU per scan = per_scan_ms + per_commit_ms × transactions per scan, fitted over the tiers. */
  postgres_cost_fit: ReturnType<typeof commitFit>;
  /** Redis CPU per command at the busiest load: what the plans use. */
  redis_cpu_ms_per_command: number;
}

if (args.from !== undefined) {
  const saved = JSON.parse(readFileSync(args.from, 'utf8')) as ScalingReport;
  model(saved, assumptionsOf(args.assume));
  process.stdout.write(`${args.json ? JSON.stringify(saved, null, 2) : render(saved)}\n`);
  process.exit(0);
}
if (args.spread !== undefined) {
  printSpread(
    args.spread
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
  );
  process.exit(0);
}

const tiers = args.tier.split(',').map((t) => t.trim());
for (const t of tiers) if (!['fast', 'auto', 'accurate'].includes(t)) fail(`unknown tier ${JSON.stringify(t)}`);
const duration = positiveInt('duration', args.duration);
const warmup = Number(args.warmup);
if (!Number.isInteger(warmup) || warmup < 0) fail('--warmup takes a number of seconds ≥ 0');
const connections = positiveInt('connections', args.connections);
const hooks = Number(args.webhooks);
if (!Number.isInteger(hooks) || hooks < 0) fail('--webhooks takes a count ≥ 0 (0: no webhook phase)');
const backlog = positiveInt('backlog', args.backlog);
const rollupScans = Number(args['rollup-scans']);
if (!Number.isInteger(rollupScans) || rollupScans < 0) fail('--rollup-scans takes a count ≥ 0 (0: no rollup phase)');
const settle = Number(args.settle);
if (!(settle >= 0)) fail('--settle takes a number of seconds ≥ 0');
const SERVER = path.join(ROOT, 'dist/app/server.mjs');
if (!existsSync(SERVER)) fail('no compiled build (dist/app/server.mjs): run npm run build first');

const when = new Date().toISOString();
const loadAtStart = loadavg()[0]!;
let postgres: PrivatePostgres | null = null;
let redis: PrivateRedis | null = null;
let receiver: Awaited<ReturnType<typeof start>> | null = null;
let service: Awaited<ReturnType<typeof start>> | null = null;
let admin: pg.Pool | null = null;
let redisClient: Redis | null = null;
let failed: unknown = null;
const report = {} as ScalingReport;
// Ctrl-C or a kill: stop what was started (the private cluster and Redis live in temporary directories).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the service, PostgreSQL and Redis…\n`);
    redisClient?.disconnect();
    void Promise.allSettled([service && stop(service.child), receiver && stop(receiver.child)])
      .then(() => Promise.allSettled([admin?.end(), redis?.stop(), postgres?.stop()]))
      .finally(() => process.exit(130));
  });

/** Service, PostgreSQL and Redis CPU, WAL position and Redis commands now (read at the end of a load). */
async function counters(): Promise<StackCounters> {
  const [cpuInfo, statsInfo, wal] = await Promise.all([
    redisClient!.info('cpu'),
    redisClient!.info('commandstats'),
    admin!.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'),
  ]);
  const calls = parseCommandStats(statsInfo);
  delete calls.info; // the benchmark's own
  return {
    serviceCpuS: treeCpuSeconds(service!.child.pid!) ?? NaN,
    postgresCpuS: treeCpuSeconds(postgres!.pid(), true) ?? NaN,
    redisCpuS: parseRedisCpu(cpuInfo),
    walBytes: lsnBytes(wal.rows[0]!.lsn),
    redisCalls: calls,
    ...(await statistics()),
  };
}

/** pg_stat_database and table sizes: read after --settle s (an idle backend reports its counts within 10 s). */
async function statistics() {
  const [db, sizes] = await Promise.all([
    admin!.query<{ c: string; i: string; u: string; d: string }>(
      `SELECT xact_commit::text c, tup_inserted::text i, tup_updated::text u, tup_deleted::text d
       FROM pg_stat_database WHERE datname = current_database()`,
    ),
    admin!.query<{ t: string; b: string }>(
      'SELECT relname AS t, pg_total_relation_size(relid)::text AS b FROM pg_stat_user_tables',
    ),
  ]);
  const r = db.rows[0]!;
  return {
    xactCommit: Number(r.c),
    tupInserted: Number(r.i),
    tupUpdated: Number(r.u),
    tupDeleted: Number(r.d),
    tableBytes: Object.fromEntries(sizes.rows.map((x) => [x.t, Number(x.b)])),
  };
}

/** The CPU/WAL/Redis counters at the end of a load, and the statistics after the settle time. */
async function settled(): Promise<StackCounters> {
  const end = await counters();
  await sleep(settle * 1000);
  return { ...end, ...(await statistics()) };
}

const count = async (sql: string, params: unknown[] = []) =>
  Number((await admin!.query<{ n: string }>(sql, params)).rows[0]!.n);
const scansStored = () => count('SELECT count(*)::text AS n FROM scans');

async function load(tier: string, seconds: number, label: string, secret: string): Promise<RunSummary> {
  const m = await measure(`http://127.0.0.1:${service!.port}/v1/scans`, bodySource(mixTemplates(tier), true), {
    connections,
    seconds,
    headers: { authorization: `Bearer ${secret}` },
    label,
    progress: !args.json,
  });
  return m.summary;
}

try {
  say('starting a private PostgreSQL and Redis…');
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // Errors of idle connections (PostgreSQL or Redis stopping at the end, or on Ctrl-C) are not the run's.
  admin.on('error', () => undefined);
  redisClient = new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  redisClient.on('error', () => undefined);
  receiver = await start(['benchmarks/webhook-receiver.ts'], { PORT: '0' }, /listening (\d+)/);
  const port = await freePort();
  say(`  ${postgres.version} at ${postgres.url}; ${redis.version.split(' ').slice(0, 3).join(' ')} at ${redis.url}`);
  say('starting the service (dist/app/server.mjs)…');
  service = await start(
    [SERVER],
    {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      SECRET_KEY: SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_REQUESTS: '100000000',
      METRICS_ENABLED: 'true',
      METRICS_TOKEN,
      JOBS_ENABLED: 'false',
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
      WEBHOOK_CA_FILE: path.join(ROOT, 'test/fixtures/tls/ca.pem'),
      CLUSTER_WORKERS: undefined,
      DATA_DIR: undefined,
    },
    null,
    port,
  );
  await waitUntilIdle(service.child.pid!);
  const secret = await bootstrapKey({ kind: 'private', env: { DATABASE_URL: postgres.url }, dispose: async () => {} });

  report.when = when;
  report.command = `npm run bench:scaling -- ${process.argv.slice(2).join(' ')}`.trim();
  report.machine = {
    ...machineInfo(),
    loadavg_1m_at_start: Math.round(loadAtStart * 100) / 100,
    postgres: postgres.version,
    redis: redis.version,
  };
  report.settings = {
    tiers,
    duration_s: duration,
    warmup_s: warmup,
    connections,
    webhooks: hooks,
    backlog,
    rollup_scans: rollupScans,
    settle_s: settle,
    corpus: 'mix (benchmarks/mix-fixtures.ts), unique bodies',
    service: 'node dist/app/server.mjs, one process, JOBS_ENABLED=false, REDIS_URL set',
  };
  report.tiers = {};

  // 1. Per tier.
  for (const tier of tiers) {
    if (warmup > 0) await load(tier, warmup, `warm-up ${tier}`, secret);
    await sleep(settle * 1000);
    const before = await counters();
    const scans0 = await scansStored();
    const summary = await load(tier, duration, `scans tier=${tier}`, secret);
    const after = await settled();
    const scans = (await scansStored()) - scans0;
    const perScan = unitCost(before, after, scans);
    report.tiers[tier] = { load: summary, scans, per_scan: perScan };
    say(`  ${tier}: ${scans} scans stored; ${formatCost(perScan)}`);
  }

  // 2. Webhook fan-out, on the first tier's load.
  report.webhooks = null;
  if (hooks > 0) {
    const tier = tiers[0]!;
    for (let i = 0; i < hooks; i++) {
      const r = await fetch(`http://127.0.0.1:${service.port}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `https://127.0.0.1:${receiver.port}/hook/${i}`,
          events: ['scan.blocked', 'scan.flagged', 'scan.warned', 'scan.allowed'],
        }),
      });
      if (r.status !== 201) throw new Error(`webhook create: ${r.status} ${await r.text()}`);
    }
    await sleep(1500); // subscription caches: pushed over Redis, a moment to land
    const before = await counters();
    const scans0 = await scansStored();
    const deliveries0 = await count('SELECT count(*)::text AS n FROM webhook_deliveries');
    await load(tier, duration, `scans tier=${tier} + ${hooks} webhooks`, secret);
    const loadEnd = performance.now();
    while (
      (await count(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE status IN ('pending', 'failed')`)) > 0
    ) {
      if (performance.now() - loadEnd > 600_000) throw new Error('the webhook backlog did not drain in 10 minutes');
      await sleep(100);
    }
    const drain = (performance.now() - loadEnd) / 1000;
    const after = await settled();
    const scans = (await scansStored()) - scans0;
    const deliveries = (await count('SELECT count(*)::text AS n FROM webhook_deliveries')) - deliveries0;
    const perScan = unitCost(before, after, scans);
    const perDel = perDelivery(perScan, report.tiers[tier]!.per_scan, deliveries / scans);
    report.webhooks = {
      tier,
      webhooks: hooks,
      scans,
      deliveries,
      drain_after_load_s: Math.round(drain * 10) / 10,
      per_scan: perScan,
      per_delivery: perDel,
      backlog: null,
    };
    say(`  webhooks: ${scans} scans, ${deliveries} deliveries (drained ${drain.toFixed(1)} s after the load)`);
    say(`    per delivery (difference to the load without webhooks): ${formatCost(perDel)}`);

    // The pump alone: --backlog deliveries (copies of a sent one) enqueued at once, no scans.
    await admin.query(
      `INSERT INTO webhook_deliveries (org_id, id, webhook_id, event_id, event_type, event_created, scan_id, data, status, attempt, next_attempt_at, created_at)
       SELECT d.org_id, 'whd_' || upper(substr(md5(random()::text || g), 1, 26)), d.webhook_id, d.event_id, d.event_type, now(), d.scan_id, NULL, 'pending', 1, now(), now()
       FROM generate_series(1, $1) g, LATERAL (SELECT * FROM webhook_deliveries ORDER BY id LIMIT 1) d`,
      [backlog],
    );
    const drainBefore = await counters();
    const t0 = performance.now();
    while (
      (await count(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE status IN ('pending', 'failed')`)) > 0
    ) {
      if (performance.now() - t0 > 600_000) throw new Error('the webhook backlog did not drain in 10 minutes');
      await sleep(50);
    }
    const drainS = (performance.now() - t0) / 1000;
    const drainCost = unitCost(drainBefore, await settled(), backlog);
    report.webhooks.backlog = {
      deliveries: backlog,
      seconds: Math.round(drainS * 100) / 100,
      per_s: Math.round(backlog / drainS),
      per_delivery: drainCost,
    };
    say(`  backlog: ${backlog} deliveries sent in ${drainS.toFixed(1)} s; per delivery: ${formatCost(drainCost)}`);
  }

  // 3. The rollup.
  report.rollup = null;
  if (rollupScans > 0) {
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
      report.rollup = { runs };
    } finally {
      await db.end();
    }
  }

  // 4. The model.
  model(report, assumptionsOf(args.assume));
} catch (err) {
  failed = err;
} finally {
  if (service) await stop(service.child);
  if (receiver) await stop(receiver.child);
  await admin?.end().catch(() => undefined);
  redisClient?.disconnect();
  await redis?.stop().catch(() => undefined);
  await postgres?.stop().catch(() => undefined);
}
if (failed) {
  process.stderr.write(
    `\nbench:scaling failed: ${failed instanceof Error ? (failed.stack ?? failed.message) : String(failed)}\n`,
  );
  process.exit(1);
}

const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `scaling-${when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else process.stdout.write(`${render(report)}\nwritten ${path.relative(ROOT, file)}\n`);
process.exit(0);

/**
 * The capacity model over a report's measurements (scaling-model.ts): the PostgreSQL fit, and per tier
 * the plans at RATES and the limits. Redis CPU per command is taken from the busiest load (Redis spends
 * less per command the more commands each wake-up finds: the slower tiers' loads overstate it).
 */
function model(r: ScalingReport, assumptions: typeof DEFAULT_ASSUMPTIONS): void {
  const measured = Object.values(r.tiers).map((t) => t.per_scan);
  r.postgres_cost_fit = commitFit(measured);
  r.assumptions = assumptions;
  r.redis_cpu_ms_per_command = busiestRedisCpuPerCommand(measured);
  r.plans = {};
  const steady = r.rollup?.runs.at(-1);
  const zero = unitCost(noCounts(), noCounts(), 1);
  for (const [tier, t] of Object.entries(r.tiers)) {
    const inputs: Inputs = {
      scan: { ...t.per_scan, redis_cpu_ms: r.redis_cpu_ms_per_command * t.per_scan.redis_commands },
      delivery: r.webhooks ? deliveryCost(r.webhooks.per_delivery, r.webhooks.backlog?.per_delivery ?? null) : zero,
      rollup_scans_per_db_cpu_s: steady?.scans_per_db_cpu_s ?? 0,
      // one backend per run: its CPU rate is a dedicated core's (scaling-model.ts Inputs)
      rollup_scans_per_run_s: steady?.scans_per_db_cpu_s ?? 0,
    };
    r.plans[tier] = { plans: RATES.map((x) => plan(x, inputs, assumptions)), limits: limits(inputs, assumptions) };
  }
}

/** Counters all zero: the delivery cost of a run without the webhook phase. */
function noCounts(): StackCounters {
  return {
    serviceCpuS: 0,
    postgresCpuS: 0,
    redisCpuS: 0,
    walBytes: 0,
    xactCommit: 0,
    tupInserted: 0,
    tupUpdated: 0,
    tupDeleted: 0,
    redisCalls: {},
    tableBytes: {},
  };
}

/** `node_cores=32,deliveries_per_scan=0.5` over the default assumptions. */
function assumptionsOf(spec: string | undefined): typeof DEFAULT_ASSUMPTIONS {
  const out = { ...DEFAULT_ASSUMPTIONS };
  for (const pair of (spec ?? '').split(',').filter(Boolean)) {
    const [k, v] = pair.split('=').map((x) => x.trim());
    if (!k || !(k in out))
      fail(`--assume: unknown assumption ${JSON.stringify(k)} (one of ${Object.keys(out).join(', ')})`);
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) fail(`--assume: ${k} takes a positive number (got ${JSON.stringify(v)})`);
    out[k as keyof typeof out] = n;
  }
  return out;
}

function formatCost(c: UnitCost): string {
  return `service ${c.service_cpu_ms} ms CPU, PostgreSQL ${c.postgres_cpu_ms} ms CPU, WAL ${c.wal_bytes} B, ${c.transactions} transactions, tuples +${c.tuples_inserted} ~${c.tuples_updated} -${c.tuples_deleted}, Redis ${c.redis_commands} commands ${c.redis_cpu_ms} ms CPU, storage ${c.storage_bytes} B`;
}

function render(r: ScalingReport): string {
  const m = r.machine;
  const out = [
    '',
    `machine: ${m.cpus} × ${m.cpu}, ${m.memory_gib} GiB, ${m.platform}, node ${m.node}, load ${m.loadavg_1m_at_start} at start`,
    `         ${m.postgres}; ${m.redis.split(' ').slice(0, 3).join(' ')}; commit ${m.git_commit}${m.git_dirty ? ' (dirty)' : ''}`,
    'per scan (the mix, one service process, private PostgreSQL and Redis)',
  ];
  for (const [tier, t] of Object.entries(r.tiers)) {
    out.push(`  ${tier.padEnd(9)} ${formatSummary(t.load)}`);
    out.push(`  ${''.padEnd(9)} ${formatCost(t.per_scan)}`);
    out.push(
      `  ${''.padEnd(9)} scans per service core: ${Math.round(1000 / Math.max(t.per_scan.service_cpu_ms, 1e-9))}; per PostgreSQL core: ${Math.round(1000 / Math.max(t.per_scan.postgres_cpu_ms, 1e-9))}`,
    );
    out.push(
      `  ${''.padEnd(9)} Redis commands: ${JSON.stringify(t.per_scan.redis_commands_by_name)}; storage: ${JSON.stringify(t.per_scan.storage_bytes_by_table)}`,
    );
  }
  if (r.postgres_cost_fit)
    out.push(
      `  PostgreSQL CPU per scan ≈ ${r.postgres_cost_fit.per_scan_ms} ms + ${r.postgres_cost_fit.per_commit_ms} ms × transactions per scan (least squares over the tiers)`,
    );
  if (r.webhooks) {
    const w = r.webhooks;
    out.push(
      `webhooks: ${w.webhooks} subscribed to every scan event, tier ${w.tier}: ${w.deliveries} deliveries for ${w.scans} scans, drained ${w.drain_after_load_s} s after the load`,
    );
    out.push(`  per delivery (with − without): ${formatCost(w.per_delivery)}`);
    if (w.backlog)
      out.push(
        `  backlog of ${w.backlog.deliveries}: ${w.backlog.seconds} s, ${w.backlog.per_s} deliveries/s; per delivery: ${formatCost(w.backlog.per_delivery)}`,
      );
  }
  if (r.rollup)
    for (const x of r.rollup.runs)
      out.push(
        `rollup ${x.label}: ${x.scans_read} scans, ${x.buckets} buckets, ${x.wall_s} s, PostgreSQL ${x.postgres_cpu_s} s CPU, WAL ${x.wal_bytes} B → ${x.scans_per_wall_s} scans/s wall, ${x.scans_per_db_cpu_s} scans per PostgreSQL CPU s`,
      );
  out.push(`capacity model (assumptions: ${JSON.stringify(r.assumptions)})`);
  for (const [tier, p] of Object.entries(r.plans)) {
    for (const x of p.plans)
      out.push(
        `  ${tier.padEnd(9)} ${String(x.scans_per_s).padStart(7)}/s: ${x.service_cores} service cores → ${x.nodes} nodes; DB cores scans ${x.db_cores_scans} + webhooks ${x.db_cores_webhooks} + rollup ${x.db_cores_rollup} → provision ${x.db_cores_provisioned}; WAL ${x.wal_mib_per_s} MiB/s; ${x.storage_gib_per_day} GiB/day; Redis ${x.redis_commands_per_s} cmd/s, ${x.redis_cores} cores → ${x.redis_shards} shard(s); rollup run at bucket end ${x.rollup_run_s_at_bucket_end} s`,
      );
    const l = p.limits;
    out.push(
      `  ${tier.padEnd(9)} limits (scans/s): DB inserts ${l.db_scan_inserts}, DB all ${l.db_all}, WAL ${l.wal}, rollup freshness ${l.rollup_freshness}, Redis shard ${l.redis_shard}; first: ${l.first}`,
    );
  }
  return out.join('\n');
}

/** --spread: the median and (max − min) / median of the headline numbers over earlier reports. */
function printSpread(files: string[]): void {
  if (files.length < 2)
    fail('--spread takes two or more report files, comma-separated (benchmarks/results/scaling-*.json)');
  const reports = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as ScalingReport);
  const rows: [string, number[]][] = [];
  const keys: (keyof UnitCost)[] = [
    'service_cpu_ms',
    'postgres_cpu_ms',
    'wal_bytes',
    'tuples_inserted',
    'redis_commands',
    'redis_cpu_ms',
    'storage_bytes',
  ];
  for (const tier of Object.keys(reports[0]!.tiers)) {
    rows.push([`${tier} req/s`, reports.map((r) => r.tiers[tier]?.load.req_per_s ?? NaN)]);
    for (const k of keys)
      rows.push([`${tier} ${k}`, reports.map((r) => (r.tiers[tier]?.per_scan[k] as number) ?? NaN)]);
  }
  const fits = reports.map((r) => commitFit(Object.values(r.tiers).map((t) => t.per_scan)));
  if (fits.every(Boolean)) {
    rows.push(['PostgreSQL ms per scan (fit)', fits.map((f) => f!.per_scan_ms)]);
    rows.push(['PostgreSQL ms per commit (fit)', fits.map((f) => f!.per_commit_ms)]);
  }
  if (reports.every((r) => r.webhooks))
    for (const k of keys) rows.push([`delivery ${k}`, reports.map((r) => r.webhooks!.per_delivery[k] as number)]);
  if (reports.every((r) => r.webhooks?.backlog)) {
    rows.push(['backlog deliveries/s', reports.map((r) => r.webhooks!.backlog!.per_s)]);
    for (const k of keys)
      rows.push([`backlog delivery ${k}`, reports.map((r) => r.webhooks!.backlog!.per_delivery[k] as number)]);
  }
  if (reports.every((r) => r.rollup?.runs.length))
    for (const i of reports[0]!.rollup!.runs.keys()) {
      rows.push([`rollup #${i + 1} scans/wall s`, reports.map((r) => r.rollup!.runs[i]?.scans_per_wall_s ?? NaN)]);
      rows.push([`rollup #${i + 1} scans/DB CPU s`, reports.map((r) => r.rollup!.runs[i]?.scans_per_db_cpu_s ?? NaN)]);
    }
  const out = [`${files.length} runs: ${files.map((f) => path.basename(f)).join(', ')}`];
  for (const [name, values] of rows) {
    const s = spread(values);
    out.push(
      `  ${name.padEnd(34)} ${values.join(' / ').padEnd(40)} median ${s.median}  spread ${Math.round(s.spread * 100)} %`,
    );
  }
  const median = medianReport(reports);
  model(median, assumptionsOf(args.assume));
  out.push('', 'the capacity model over the medians of these runs:');
  out.push(
    ...render(median)
      .split('\n')
      .slice(
        render(median)
          .split('\n')
          .findIndex((l) => l.startsWith('capacity')),
      ),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Every numeric field the median over `values` (objects of one shape); other fields from the first. */
function medianOf<T>(values: readonly T[]): T {
  const first = values[0]!;
  if (typeof first === 'number') return spread(values as unknown as number[]).median as T;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return first;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(first))
    out[k] = medianOf(values.map((v) => (v as Record<string, unknown>)[k] ?? (first as Record<string, unknown>)[k]));
  return out as T;
}

/** A report whose measurements are the medians of `reports` (the first one's machine and settings). */
function medianReport(reports: readonly ScalingReport[]): ScalingReport {
  const r = structuredClone(reports[0]!);
  for (const tier of Object.keys(r.tiers)) r.tiers[tier] = medianOf(reports.map((x) => x.tiers[tier]!));
  if (reports.every((x) => x.webhooks)) r.webhooks = medianOf(reports.map((x) => x.webhooks!));
  if (reports.every((x) => x.rollup?.runs.length === r.rollup?.runs.length) && r.rollup)
    r.rollup.runs = r.rollup.runs.map((_, i) => medianOf(reports.map((x) => x.rollup!.runs[i]!)));
  return r;
}
