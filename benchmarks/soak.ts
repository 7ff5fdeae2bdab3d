/**
 * The soak: the service under a steady share of its own throughput for minutes, watching for what
 * only time shows — memory that keeps growing, latency that drifts, errors that start late.
 *
 *   npm run soak -- [--minutes 10] [--rate-fraction 0.5] [--connections 50] [--calibrate 10] [--json]
 *
 * Starts the service as a child process as `npm run bench` does (benchmarks/service.ts: DATABASE_URL,
 * else a fresh `cf_soak` database on the local PostgreSQL, so a bench run beside it keeps `cf_bench`),
 * mints a key with the CLI, warms up, then measures its throughput on the standard load (1,000-character
 * bodies, 60% benign / 20% injection / 20% PII, tier fast, 50 connections) for `--calibrate` seconds.
 * Then it runs for `--minutes` at `--rate-fraction` of that throughput (autocannon `overallRate`), one
 * minute at a time: each minute's latency, throughput, non-2xx and errors, and at its end the service's
 * RSS (/proc/<pid>/status) and V8 heap (its /metrics); RSS is also sampled every 10 s. Reports RSS at
 * the start and end of the soak and its growth, p99 per minute and its drift (last minute against the
 * first), and the errors; writes benchmarks/results/soak-<timestamp>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cpuPerRequest, formatCpu, sampleCpu, type CpuPerRequest } from './cpu.ts';
import { bodies } from './fixtures.ts';
import { formatSummary, measure, type RunSummary } from './measure.ts';
import { parseCli } from './cli.ts';
import { machineInfo, ROOT, type MachineInfo } from './processes.ts';
import { round3 } from './rounds.ts';
import { bootstrapKey, openDatabase, startService, type Database, type Service } from './service.ts';

const USAGE =
  'usage: npm run soak -- [--minutes 10] [--rate-fraction 0.5] [--connections 50] [--calibrate 10] [--json]';

const {
  values: args,
  fail,
  positiveInt,
} = parseCli(USAGE, {
  minutes: { type: 'string', default: '10' },
  'rate-fraction': { type: 'string', default: '0.5' },
  connections: { type: 'string', default: '50' },
  calibrate: { type: 'string', default: '10' },
  json: { type: 'boolean', default: false },
});
const minutes = positiveInt('minutes', args.minutes);
const connections = positiveInt('connections', args.connections);
const calibrateSeconds = positiveInt('calibrate', args.calibrate);
const fraction = Number(args['rate-fraction']);
if (!(fraction > 0 && fraction <= 1))
  fail(`--rate-fraction takes a number in (0, 1] (got ${JSON.stringify(args['rate-fraction'])})`);
const progress = !args.json;
const say = (s: string) => progress && process.stderr.write(`${s}\n`);
const WARMUP_SECONDS = 3;
const RSS_EVERY_MS = 10_000;

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** The process's resident set in bytes (/proc/<pid>/status VmRSS); null off Linux or once it is gone. */
function rssBytes(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/** V8's used heap in bytes, from the service's /metrics (prom-client's default metrics); null when unavailable. */
async function heapUsedBytes(port: number): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const m = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)$/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

interface Minute {
  minute: number;
  /** Rate asked of autocannon and rate achieved (req/s). */
  target_rate: number;
  summary: RunSummary;
  cpu: CpuPerRequest | null;
  /** At the minute's end. */
  rss_mib: number | null;
  heap_used_mib: number | null;
}

interface SoakReport {
  when: string;
  machine: MachineInfo;
  settings: {
    minutes: number;
    rate_fraction: number;
    connections: number;
    calibrate_s: number;
    warmup_s: number;
    database: string;
    command: string;
  };
  calibration: RunSummary;
  target_rate: number;
  minutes: Minute[];
  rss: {
    idle_mib: number | null;
    start_mib: number | null;
    end_mib: number | null;
    growth_mib: number | null;
    growth_pct: number | null;
    max_mib: number | null;
    samples: { t_s: number; mib: number }[];
  };
  heap_used: { start_mib: number | null; end_mib: number | null };
  p99: { per_minute_ms: number[]; first_ms: number; last_ms: number; drift_ms: number; drift_ratio: number };
  totals: { requests: number; non_2xx: number; errors: number; timeouts: number };
}

const when = new Date().toISOString();
let db: Database | null = null;
let svc: Service | null = null;
let report: SoakReport | null = null;
let failed: unknown = null;
try {
  db = await openDatabase(false, 'cf_soak');
  say(`database: ${db.kind}; starting the service…`);
  // the load repeats five texts: the detector-result cache would answer nearly every scan
  svc = await startService(db, null, undefined, { RESULT_CACHE_BYTES: '0' });
  const pid = svc.child.pid!;
  say(
    `  answering after ${(svc.startup.healthy_ms / 1000).toFixed(1)} s, idle after ${(svc.startup.idle_ms / 1000).toFixed(1)} s more`,
  );
  const idleRss = rssBytes(pid);
  const secret = await bootstrapKey(db);
  const url = `http://127.0.0.1:${svc.port}/v1/scans`;
  const headers = { authorization: `Bearer ${secret}` };
  const requests = bodies(1_000, 'user_message', 'fast');

  await measure(url, requests, { connections, seconds: WARMUP_SECONDS, headers, label: 'warm-up', progress });
  const calibration = (
    await measure(url, requests, { connections, seconds: calibrateSeconds, headers, label: 'throughput', progress })
  ).summary;
  const rate = Math.max(1, Math.round(calibration.req_per_s * fraction));
  say(`soak: ${minutes} min at ${rate} req/s (${fraction} of ${calibration.req_per_s} req/s)`);

  const began = Date.now();
  const startRss = rssBytes(pid);
  const startHeap = await heapUsedBytes(svc.port);
  const samples: { t_s: number; mib: number }[] = [];
  const sample = () => {
    const b = rssBytes(pid);
    if (b !== null) samples.push({ t_s: Math.round((Date.now() - began) / 1000), mib: mib(b) });
  };
  sample();
  const sampler = setInterval(sample, RSS_EVERY_MS);
  const perMinute: Minute[] = [];
  try {
    for (let m = 1; m <= minutes; m++) {
      const before = sampleCpu(pid);
      const run = await measure(url, requests, {
        connections,
        seconds: 60,
        headers,
        overallRate: rate,
        label: `minute ${m}/${minutes} at ${rate} req/s`,
        progress,
      });
      const cpu = cpuPerRequest(before, sampleCpu(pid), run.summary.requests);
      const rss = rssBytes(pid);
      const heap = await heapUsedBytes(svc.port);
      perMinute.push({
        minute: m,
        target_rate: rate,
        summary: run.summary,
        cpu,
        rss_mib: rss === null ? null : mib(rss),
        heap_used_mib: heap === null ? null : mib(heap),
      });
      say(
        `  RSS ${rss === null ? '?' : mib(rss)} MiB, heap ${heap === null ? '?' : mib(heap)} MiB${cpu ? `; ${formatCpu(cpu)}` : ''}`,
      );
    }
  } finally {
    clearInterval(sampler);
  }
  sample();

  const endRss = rssBytes(pid);
  const p99s = perMinute.map((m) => m.summary.p99_ms);
  const first = p99s[0]!;
  const last = p99s.at(-1)!;
  const sum = (k: 'requests' | 'non_2xx' | 'errors' | 'timeouts') => perMinute.reduce((a, m) => a + m.summary[k], 0);
  report = {
    when,
    machine: machineInfo(),
    settings: {
      minutes,
      rate_fraction: fraction,
      connections,
      calibrate_s: calibrateSeconds,
      warmup_s: WARMUP_SECONDS,
      database: db.kind,
      command: `npm run soak -- ${process.argv.slice(2).join(' ')}`.trim(),
    },
    calibration,
    target_rate: rate,
    minutes: perMinute,
    rss: {
      idle_mib: idleRss === null ? null : mib(idleRss),
      start_mib: startRss === null ? null : mib(startRss),
      end_mib: endRss === null ? null : mib(endRss),
      growth_mib: startRss === null || endRss === null ? null : mib(endRss - startRss),
      growth_pct:
        startRss === null || endRss === null ? null : Math.round(((endRss - startRss) / startRss) * 1000) / 10,
      max_mib: samples.length ? Math.max(...samples.map((s) => s.mib)) : null,
      samples,
    },
    heap_used: {
      start_mib: startHeap === null ? null : mib(startHeap),
      end_mib: perMinute.at(-1)?.heap_used_mib ?? null,
    },
    p99: {
      per_minute_ms: p99s,
      first_ms: first,
      last_ms: last,
      drift_ms: round3(last - first),
      drift_ratio: round3(last / Math.max(first, 0.001)),
    },
    totals: { requests: sum('requests'), non_2xx: sum('non_2xx'), errors: sum('errors'), timeouts: sum('timeouts') },
  };
} catch (err) {
  failed = err;
} finally {
  await svc?.stop();
  await db?.dispose().catch(() => undefined);
}
if (failed || !report) {
  process.stderr.write(`\nsoak failed: ${failed instanceof Error ? failed.message : String(failed)}\n`);
  process.exit(1);
}

const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `soak-${when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);

if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const r = report;
  const out = [
    '',
    `throughput (calibration): ${formatSummary(r.calibration)}`,
    `soak: ${r.settings.minutes} min at ${r.target_rate} req/s (${r.settings.rate_fraction} of it)`,
    'minute  req/s   p50 ms   p99 ms   max ms  non-2xx  errors  RSS MiB  heap MiB',
    ...r.minutes.map((m) =>
      [
        String(m.minute).padStart(6),
        String(m.summary.req_per_s).padStart(6),
        String(m.summary.p50_ms).padStart(8),
        String(m.summary.p99_ms).padStart(8),
        String(m.summary.max_ms).padStart(8),
        String(m.summary.non_2xx).padStart(8),
        String(m.summary.errors + m.summary.timeouts).padStart(7),
        String(m.rss_mib ?? '?').padStart(8),
        String(m.heap_used_mib ?? '?').padStart(9),
      ].join(' '),
    ),
    `RSS: idle ${r.rss.idle_mib} MiB, soak start ${r.rss.start_mib} MiB, end ${r.rss.end_mib} MiB, growth ${r.rss.growth_mib} MiB (${r.rss.growth_pct}%), max ${r.rss.max_mib} MiB; heap used ${r.heap_used.start_mib} → ${r.heap_used.end_mib} MiB`,
    `p99 drift: ${r.p99.first_ms} ms (first minute) → ${r.p99.last_ms} ms (last): ${r.p99.drift_ms >= 0 ? '+' : ''}${r.p99.drift_ms} ms, ×${r.p99.drift_ratio}`,
    `errors: ${r.totals.non_2xx} non-2xx, ${r.totals.errors} errors, ${r.totals.timeouts} timeouts of ${r.totals.requests} requests`,
    `written ${path.relative(ROOT, file)}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(0);
