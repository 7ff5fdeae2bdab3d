/**
 * Webhook delivery throughput to a local HTTPS receiver, and what delivery load does to scan latency.
 *
 *   npm run bench:webhooks -- [--connections 50] [--duration 10] [--webhooks 2] [--backlog 20000] [--json]
 *
 * Starts the real service (server/main.ts) and a receiver (benchmarks/webhook-receiver.ts) as child
 * processes against a fresh database, then:
 *   1. scans (tier fast, the benchmark body mix) with no webhooks: the baseline p99;
 *   2. the same with `--webhooks` webhooks subscribed to every scan event, so each scan enqueues that
 *      many deliveries: scan p99 under delivery load, deliveries/s while scans run, and how long
 *      the backlog takes to drain after;
 *   3. `--backlog` deliveries enqueued at once with no scans: the pump's drain rate alone.
 * Writes benchmarks/results/webhooks-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../lib/clock.ts';
import { buildKeyring } from '../lib/crypto.ts';
import { createApiKey } from '../services/api-keys.ts';
import { LocalInvalidationBus } from '../services/invalidation-bus.ts';
import { createOrganization } from '../services/organizations.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { benchmarkDatabase } from './database.ts';
import { bodies } from './fixtures.ts';
import { freePort, load, ROOT, start, summary } from './processes.ts';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    webhooks: { type: 'string', default: '2' },
    backlog: { type: 'string', default: '20000' },
    // Enqueue only (WEBHOOK_DELIVERY_ENABLED=false): the scan path's own cost of webhooks.
    'enqueue-only': { type: 'boolean', default: false },
    // Write the service's CPU profile (.cpuprofile) into this folder when it stops.
    profile: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const connections = Number(args.connections);
const duration = Number(args.duration);
const hooks = Number(args.webhooks);
const backlog = Number(args.backlog);
const SECRET = 'benchmark-secret-key-0123456789abcdef';
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);

const databaseUrl = await benchmarkDatabase('cf_bench_webhooks');
const db = createPool(databaseUrl, 2, () => undefined);
await migrate(db);
const keyring = buildKeyring(Buffer.from(SECRET, 'utf8'));
const org = await createOrganization(db, systemClock, `Bench ${Date.now()}`);
const { secret } = await createApiKey(
  { db, clock: systemClock, keyring, revocations: new LocalInvalidationBus(), defaultTtlDays: 1 },
  org.id,
  { name: 'bench', scopes: ['scans:write', 'webhooks:write', 'webhooks:read'], environment: 'test' },
  { id: 'bench', requestId: null },
);

const receiver = await start(['benchmarks/webhook-receiver.ts'], { PORT: '0' }, /listening (\d+)/);
const servicePort = await freePort();
const service = await start(
  [...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.profile)}`] : []), 'server/main.ts'],
  {
    DATABASE_URL: databaseUrl,
    SECRET_KEY: SECRET,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REQUESTS: '100000000',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
    WEBHOOK_CA_FILE: path.join(ROOT, 'test/fixtures/tls/ca.pem'),
    WEBHOOK_DELIVERY_ENABLED: String(!args['enqueue-only']),
    // the load repeats five texts: the detector-result cache would answer nearly every scan
    RESULT_CACHE_BYTES: '0',
  },
  null,
  servicePort,
);
const base = `http://127.0.0.1:${service.port}`;
const auth = { authorization: `Bearer ${secret}` };
const scanBodies = bodies(1000, 'user_message', 'fast');
const scans = (seconds: number) =>
  load(`${base}/v1/scans`, scanBodies, { connections, seconds, headers: auth, progress: !args.json });

const count = async (where: string) =>
  (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`)).rows[0]!.n;
/** Samples succeeded deliveries once a second while `during` runs: the throughput-over-time series. */
async function sampled<T>(during: Promise<T>): Promise<{ value: T; series: number[] }> {
  const series: number[] = [];
  let last = await count(`status = 'succeeded'`);
  let done = false;
  const value = during.finally(() => (done = true));
  while (!done) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await count(`status = 'succeeded'`);
    series.push(now - last);
    last = now;
  }
  return { value: await value, series };
}
async function drained(timeoutMs: number): Promise<number> {
  const started = performance.now();
  while ((await count(`status IN ('pending', 'failed')`)) > 0) {
    if (performance.now() - started > timeoutMs) throw new Error('backlog did not drain');
    await new Promise((r) => setTimeout(r, 50));
  }
  return (performance.now() - started) / 1000;
}

const report: Record<string, unknown> = {};
class Done extends Error {}
try {
  say('warming up (3 s)…');
  await scans(3);
  say(`1. scans without webhooks: ${connections} connections, ${duration} s`);
  const baseline = summary(await scans(duration));

  for (let i = 0; i < hooks; i++) {
    const r = await fetch(`${base}/v1/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `https://127.0.0.1:${receiver.port}/hook/${i}`,
        events: ['scan.blocked', 'scan.flagged', 'scan.warned', 'scan.allowed'],
      }),
    });
    if (r.status !== 201) throw new Error(`webhook create: ${r.status} ${await r.text()}`);
  }
  say(`2. scans with ${hooks} webhooks on every scan event`);
  await new Promise((r) => setTimeout(r, 1500)); // subscription caches refresh (at most POLICY_CACHE_TTL_MS; 1 s without Redis)
  const before = await count(`status = 'succeeded'`);
  const t0 = performance.now();
  const loaded = await sampled(scans(duration));
  const scanSeconds = (performance.now() - t0) / 1000;
  const duringScans = (await count(`status = 'succeeded'`)) - before;
  const enqueued = await count('true');
  const withLoad = summary(loaded.value);
  if (args['enqueue-only']) {
    Object.assign(report, {
      when: new Date().toISOString(),
      enqueue_only: true,
      scans_without_webhooks: baseline,
      scans_with_webhooks: withLoad,
      enqueued,
    });
    throw new Done();
  }
  const drainAfter = await drained(600_000);

  say(`3. ${backlog} deliveries enqueued at once, no scans`);
  const succeededBefore = await count(`status = 'succeeded'`);
  await db.query(
    `INSERT INTO webhook_deliveries (org_id, id, webhook_id, event_id, event_type, event_created, scan_id, data, status, attempt, next_attempt_at, created_at)
     SELECT d.org_id, 'whd_' || upper(substr(md5(random()::text || g), 1, 26)), d.webhook_id, d.event_id, d.event_type, now(), d.scan_id, NULL, 'pending', 1, now(), now()
     FROM generate_series(1, $1) g, LATERAL (SELECT * FROM webhook_deliveries ORDER BY id LIMIT 1) d`,
    [backlog],
  );
  const drainSeconds = await sampled(drained(600_000));
  const drainedCount = (await count(`status = 'succeeded'`)) - succeededBefore;

  Object.assign(report, {
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
    settings: { connections, duration_s: duration, webhooks: hooks, backlog, tier: 'fast', body_chars: 1000 },
    scans_without_webhooks: baseline,
    scans_with_webhooks: withLoad,
    p99_ratio_with_vs_without: Math.round((withLoad.p99_ms / baseline.p99_ms) * 100) / 100,
    deliveries_while_scanning: {
      enqueued,
      succeeded_during_scans: duringScans,
      per_s: Math.round(duringScans / scanSeconds),
      backlog_drained_after_s: Math.round(drainAfter * 10) / 10,
      per_s_series: loaded.series,
    },
    backlog_drain: {
      deliveries: drainedCount,
      seconds: Math.round(drainSeconds.value * 100) / 100,
      per_s: Math.round(drainedCount / drainSeconds.value),
      per_s_series: drainSeconds.series,
    },
  });
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  const exited = new Promise((r) => service.child.once('exit', r));
  service.child.kill('SIGTERM');
  receiver.child.kill('SIGTERM');
  await exited;
  await db.end();
}

mkdirSync(path.join(ROOT, 'benchmarks/results'), { recursive: true });
const file = path.join(ROOT, 'benchmarks/results', `webhooks-${String(report.when).replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  console.log(JSON.stringify(report, null, 2));
  console.log('written', path.relative(ROOT, file));
}
process.exit(0);
