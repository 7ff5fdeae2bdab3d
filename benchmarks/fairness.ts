/**
 * Fair sharing between organizations (issue 36): a victim organization's small-scan latency alone, then
 * while an attacker organization saturates the service with maximum-size scans.
 *
 *   npm run bench:fairness -- [--tier auto[,fast,accurate]] [--attackers 2] [--chars 500000]
 *                             [--duration 20] [--rounds 1] [--env KEY=VALUE[,KEY=VALUE…]] [--json]
 *
 * The service runs as a child process (benchmarks/service.ts) on the local PostgreSQL with the result
 * cache off (every attacker text is its own anyway). Two organizations get an admin key each. The victim
 * sends small `user_message` scans (tier auto) one after another, 20 ms apart, first alone for
 * `--duration` seconds, then again for `--duration` seconds while `--attackers` connections each send
 * `--chars`-character scans back to back, tiers in turn from `--tier`. A prober asks `/healthz` every
 * 50 ms meanwhile. Reported per round: the victim's p50/p95/p99 alone and loaded, the p99 ratio (target
 * ≤ 2) and its non-201 answers (target 0), the attacker's answers, the probe's worst. `--env` passes
 * settings to the service (e.g. `POOL_SLICE_MS=0,SCAN_LONG_TEXT_CHARS=50000000,WORKER_NICE=0` to see
 * what slicing, pacing and priorities buy). Writes benchmarks/results/fairness-<timestamp>.json.
 */
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCli } from './cli.ts';
import { textOf } from './fixtures.ts';
import { machineInfo, ROOT } from './processes.ts';
import { bootstrapKey, openDatabase, startService } from './service.ts';

const USAGE =
  'usage: npm run bench:fairness -- [--tier auto[,fast,accurate]] [--attackers N] [--chars N] [--duration S] [--rounds N] [--env K=V[,K=V…]] [--json]';
const {
  values: args,
  fail,
  positiveInt,
} = parseCli(USAGE, {
  tier: { type: 'string', default: 'auto' },
  attackers: { type: 'string', default: '2' },
  chars: { type: 'string', default: '500000' },
  duration: { type: 'string', default: '20' },
  rounds: { type: 'string', default: '1' },
  env: { type: 'string', default: '' },
  json: { type: 'boolean', default: false },
});
const tiers = args.tier.split(',');
if (tiers.some((t) => !['fast', 'accurate', 'auto'].includes(t))) fail(`--tier: fast, accurate or auto`);
const attackers = positiveInt('attackers', args.attackers);
const chars = positiveInt('chars', args.chars);
const durationMs = positiveInt('duration', args.duration) * 1000;
const rounds = positiveInt('rounds', args.rounds);
const extraEnv = Object.fromEntries(
  args.env
    .split(',')
    .filter(Boolean)
    .map((kv) => {
      const i = kv.indexOf('=');
      if (i < 1) fail(`--env: KEY=VALUE pairs (got ${JSON.stringify(kv)})`);
      return [kv.slice(0, i), kv.slice(i + 1)];
    }),
);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

interface Answer {
  status: number;
  ms: number;
}

function request(port: number, method: string, url: string, key: string | null, body?: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = http.request({ host: '127.0.0.1', port, path: url, method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

const scanBody = (text: string, tier: string) =>
  JSON.stringify({ kind: 'content', surface: 'user_message', content: { type: 'text', text }, options: { tier } });

function quantile(samples: readonly number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const statuses = (answers: readonly Answer[]) => {
  const out: Record<string, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
};
const latency = (answers: readonly Answer[]) => {
  const ms = answers.map((a) => a.ms);
  return {
    n: ms.length,
    p50: round1(quantile(ms, 0.5)),
    p95: round1(quantile(ms, 0.95)),
    p99: round1(quantile(ms, 0.99)),
  };
};

const db = await openDatabase(false, 'cf_bench_fairness');
const results: unknown[] = [];
for (let round = 1; round <= rounds; round++) {
  const svc = await startService(db, null, process.env.FAIR_PROFILE, { RESULT_CACHE_BYTES: '0', ...extraEnv });
  try {
    const victim = await bootstrapKey(db);
    const attacker = await bootstrapKey(db);
    let n = 0;
    const victimFor = async (ms: number): Promise<Answer[]> => {
      const out: Answer[] = [];
      const end = Date.now() + ms;
      while (Date.now() < end) {
        out.push(
          await request(svc.port, 'POST', '/v1/scans', victim, scanBody(`Can you help me plan a trip? ${n++}`, 'auto')),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
      return out;
    };
    await victimFor(3_000); // warm
    const alone = await victimFor(durationMs);
    let attacking = true;
    const attack: Answer[] = [];
    const flood = Array.from({ length: attackers }, async (_, c) => {
      for (let i = c; attacking; i += attackers) {
        const tier = tiers[i % tiers.length]!;
        attack.push(
          await request(svc.port, 'POST', '/v1/scans', attacker, scanBody(textOf(chars, 'mixed', i * 7_919), tier)),
        );
      }
    });
    const probes: number[] = [];
    const probing = (async () => {
      while (attacking) {
        probes.push((await request(svc.port, 'GET', '/healthz', null)).ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 1_000)); // the attacker's backlog builds
    const loaded = await victimFor(durationMs);
    attacking = false;
    await Promise.all([...flood, probing]);
    const a = latency(alone);
    const l = latency(loaded);
    const row = {
      round,
      victim_alone: a,
      victim_loaded: l,
      p99_ratio: round1((l.p99 / a.p99) * 100) / 100,
      victim_statuses: statuses(loaded),
      victim_errors: loaded.filter((x) => x.status !== 201).length,
      attacker: { ...latency(attack), statuses: statuses(attack) },
      healthz: { p99: round1(quantile(probes, 0.99)), max: round1(Math.max(...probes)) },
      targets: {
        p99_within_2x: l.p99 <= 2 * a.p99,
        no_victim_errors: loaded.every((x) => x.status === 201),
      },
    };
    results.push(row);
    if (!args.json)
      process.stdout.write(
        `round ${round}: victim alone p50 ${a.p50} p99 ${a.p99} ms (${a.n}); loaded p50 ${l.p50} p95 ${l.p95} p99 ${l.p99} ms (${l.n}); ` +
          `p99 ×${row.p99_ratio} (target ≤ 2: ${row.targets.p99_within_2x ? 'met' : 'not met'}); victim non-201: ${row.victim_errors}; ` +
          `attacker ${JSON.stringify(row.attacker.statuses)} p50 ${row.attacker.p50} ms; /healthz max ${row.healthz.max} ms\n`,
      );
  } finally {
    await svc.stop();
  }
}
await db.dispose();
agent.destroy();

const report = {
  benchmark: 'fairness',
  at: new Date().toISOString(),
  machine: machineInfo(),
  settings: { tiers, attackers, chars, duration_s: durationMs / 1000, env: extraEnv },
  rounds: results,
};
const dir = path.join(ROOT, 'benchmarks', 'results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `fairness-${report.at.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
else process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
