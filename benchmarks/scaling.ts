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
import { bodySource } from './body-source.ts';
import { parseCli } from './cli.ts';
import { measure, type RunSummary } from './measure.ts';
import { mixTemplates } from './mix-fixtures.ts';
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './private-stack.ts';
import { freePort, machineInfo, ROOT, start, stop, treeCpuSeconds, waitUntilIdle } from './processes.ts';
import { bootstrapKey, METRICS_TOKEN, SECRET } from './service.ts';
import {
  lsnBytes,
  parseCommandStats,
  parseRedisCpu,
  perDelivery,
  unitCost,
  type StackCounters,
} from './scaling-model.ts';
import { rollupPhase } from './scaling-phases.ts';
import { assumptionsOf, formatCost, model, printSpread, render, type ScalingReport } from './scaling-report.ts';

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
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (args.from !== undefined) {
  const saved = JSON.parse(readFileSync(args.from, 'utf8')) as ScalingReport;
  model(saved, assumptionsOf(args.assume, fail));
  process.stdout.write(`${args.json ? JSON.stringify(saved, null, 2) : render(saved)}\n`);
  process.exit(0);
}
if (args.spread !== undefined) {
  printSpread(
    args.spread
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
    args.assume,
    fail,
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
  if (rollupScans > 0) report.rollup = await rollupPhase({ postgres, admin, rollupScans, say, count, scansStored });

  // 4. The model.
  model(report, assumptionsOf(args.assume, fail));
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
