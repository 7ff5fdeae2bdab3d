/**
 * The HTTP benchmark: the service under autocannon next to a bare Express JSON echo in the same run.
 *
 *   npm run bench -- [--scenario standard|document|scaling|all] [--tier fast|accurate|auto[,…]]
 *                    [--connections N] [--duration S] [--warmup S] [--body-chars N] [--surface S]
 *                    [--cluster N] [--repeat N] [--embedded] [--profile DIR] [--json]
 *
 * Scenarios (explicit flags apply to every scenario of the run; otherwise each has its defaults):
 * - standard: `POST /v1/scans`, 60% benign / 20% injection / 20% PII bodies of 1,000 characters,
 *   surface user_message, tier fast, 50 connections; `--cluster N` runs the service with N processes.
 * - document: 30,000-character documents (benign paragraphs, the occasional injection or PII
 *   sentence), surface document, tier accurate, 1 connection; target p95 ≤ 100 ms. The target is a
 *   latency: with c documents in flight each waits for the others' share of the cores (p95 grows
 *   about c-fold), so `--connections c` measures a loaded service rather than a document's latency.
 * - scaling: the standard load against `--cluster n` for n = 1..N (N = --cluster, default the CPU
 *   count); efficiency = throughput(n) / (n × throughput(1)), target ≥ 0.8.
 *
 * `--repeat N` runs the scenarios N times in rounds (echo and service interleaved, each round with its
 * own echo), so slow drift on a shared machine hits both sides alike; ratios and targets are then
 * reported per round and as the median over the rounds (a target is met when its median is).
 *
 * The service runs as a child process on DATABASE_URL, else a fresh `cf_bench` database on the local
 * PostgreSQL, or with --embedded on its own embedded PostgreSQL in a temporary DATA_DIR. Each target
 * is warmed up before it is measured. Writes benchmarks/results/<timestamp>.json and .html.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { SURFACES } from '../engine/detector.ts';
import { cpuPerRequest, formatCpu, sampleCpu } from './cpu.ts';
import { bodies, documentBodies } from './fixtures.ts';
import { formatSummary, measure, type Measurement } from './measure.ts';
import { medianRatios, medianScaling, round3, targetsOf, type Check } from './rounds.ts';
import { parseCli } from './cli.ts';
import { machineInfo, ROOT, start, stop } from './processes.ts';
import {
  renderHtml,
  type BenchReport,
  type Ratio,
  type RunRecord,
  type Scenario,
  type ScalingRow,
  type TargetCheck,
} from './report-html.ts';
import { bootstrapKey, openDatabase, startService, type Database, type Service } from './service.ts';

const USAGE =
  'usage: npm run bench -- [--scenario standard|document|scaling|all] [--tier fast|accurate|auto[,…]] [--connections N] [--duration S] [--warmup S] [--body-chars N] [--surface S] [--cluster N] [--repeat N] [--embedded] [--profile DIR] [--json]';

const {
  values: args,
  fail,
  positiveInt,
} = parseCli(USAGE, {
  scenario: { type: 'string', default: 'standard' },
  tier: { type: 'string' },
  connections: { type: 'string' },
  duration: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '3' },
  'body-chars': { type: 'string' },
  surface: { type: 'string' },
  cluster: { type: 'string' },
  repeat: { type: 'string', default: '1' },
  embedded: { type: 'boolean', default: false },
  // The service writes V8 CPU profiles (.cpuprofile, one per process and thread) here when it stops.
  profile: { type: 'string' },
  json: { type: 'boolean', default: false },
});

const SCENARIOS: Scenario[] = ['standard', 'document', 'scaling'];
const scenarios: Scenario[] =
  args.scenario === 'all'
    ? SCENARIOS
    : SCENARIOS.includes(args.scenario as Scenario)
      ? [args.scenario as Scenario]
      : fail(`unknown --scenario ${args.scenario}`);
const tiers = args.tier?.split(',').map((t) => t.trim());
for (const t of tiers ?? []) if (!['fast', 'accurate', 'auto'].includes(t)) fail(`unknown tier ${JSON.stringify(t)}`);
if (args.surface !== undefined && !(SURFACES as readonly string[]).includes(args.surface))
  fail(`unknown --surface ${args.surface} (one of ${SURFACES.join(', ')})`);
const duration = positiveInt('duration', args.duration)!;
const warmup = Number(args.warmup);
if (!Number.isInteger(warmup) || warmup < 0) fail('--warmup takes a number of seconds ≥ 0');
const connectionsArg = positiveInt('connections', args.connections);
const charsArg = positiveInt('body-chars', args['body-chars']);
const clusterArg = positiveInt('cluster', args.cluster);
const repeat = positiveInt('repeat', args.repeat)!;
const progress = !args.json;
const say = (s: string) => progress && process.stderr.write(`${s}\n`);

/** One scenario's load: the flags where given, else the scenario's defaults. */
interface Load {
  connections: number;
  chars: number;
  surface: string;
  tiers: string[];
  bodies: (tier: string) => string[];
}
function loadFor(scenario: Scenario): Load {
  const document = scenario === 'document';
  const chars = charsArg ?? (document ? 30_000 : 1_000);
  const surface = args.surface ?? (document ? 'document' : 'user_message');
  return {
    connections: connectionsArg ?? (document ? 1 : 50),
    chars,
    surface,
    tiers: tiers ?? [document ? 'accurate' : 'fast'],
    bodies: (tier) => (document ? documentBodies(chars, surface, tier) : bodies(chars, surface, tier)),
  };
}

const runs: RunRecord[] = [];
const ratios: Ratio[] = [];
const targets: TargetCheck[] = [];
// Assigned inside the scenario functions (an object, so the checker does not narrow them to null here).
const state: { scaling: ScalingRow[] | null; service: Service | null; round: number } = {
  scaling: null,
  service: null,
  round: 1,
};
/** ` #k` on ids and names when the run has several rounds. */
const roundTag = () => (repeat > 1 ? ` #${state.round}` : '');

let db: Database | null = null;
let echo: Awaited<ReturnType<typeof start>> | null = null;
let secret = '';

/** The service with `cluster` processes (null: the plain single process), restarted only when that changes. */
async function serviceWith(cluster: number | null): Promise<Service> {
  if (state.service?.cluster === cluster) return state.service;
  await state.service?.stop();
  state.service = null;
  say(`starting the service${cluster === null ? '' : ` with --cluster ${cluster}`}…`);
  const started = await startService(db!, cluster, args.profile);
  state.service = started;
  say(
    `  answering after ${(started.startup.healthy_ms / 1000).toFixed(1)} s, idle after ${(started.startup.idle_ms / 1000).toFixed(1)} s more`,
  );
  if (!secret) secret = await bootstrapKey(db!);
  return started;
}

/** `pid`: the target's process (the echo, or the service; its cluster workers are found under it) for CPU accounting. */
async function record(
  scenario: Scenario,
  target: 'echo' | 'scans',
  pid: number,
  url: string,
  requests: string[],
  load: Load,
  tier: string | null,
  cluster: number | null,
  headers: Record<string, string>,
): Promise<RunRecord> {
  const label = `${scenario} ${target}${tier ? ` tier=${tier}` : ''}${cluster ? ` cluster=${cluster}` : ''}${roundTag()}`;
  if (warmup > 0)
    await measure(url, requests, {
      connections: load.connections,
      seconds: warmup,
      headers,
      label: `warm-up ${label}`,
      progress,
    });
  const before = sampleCpu(pid);
  const m: Measurement = await measure(url, requests, {
    connections: load.connections,
    seconds: duration,
    headers,
    label,
    progress,
  });
  const cpu = cpuPerRequest(before, sampleCpu(pid), m.summary.requests);
  if (cpu) say(`  ${formatCpu(cpu)}`);
  const run: RunRecord = {
    id: `${scenario}: ${target}${tier ? ` tier=${tier}` : ''}${cluster ? ` cluster=${cluster}` : ''}${roundTag()}`,
    round: state.round,
    scenario,
    target,
    tier,
    cluster,
    connections: load.connections,
    body_chars: load.chars,
    surface: load.surface,
    duration_s: duration,
    ...m,
    cpu,
  };
  runs.push(run);
  return run;
}

// The echo baseline once per distinct load (bodies, connections): its ratio partner in every scenario.
const echoRuns = new Map<string, RunRecord>();
async function echoFor(scenario: Scenario, load: Load): Promise<RunRecord> {
  const key = `${state.round}|${scenario === 'document' ? 'document' : 'standard'}|${load.chars}|${load.surface}|${load.connections}`;
  const done = echoRuns.get(key);
  if (done) return done;
  const run = await record(
    scenario,
    'echo',
    echo!.child.pid!,
    `http://127.0.0.1:${echo!.port}/echo`,
    load.bodies(load.tiers[0]!),
    load,
    null,
    null,
    {},
  );
  echoRuns.set(key, run);
  return run;
}

async function scans(scenario: Scenario, load: Load, tier: string, svc: Service): Promise<RunRecord> {
  return record(
    scenario,
    'scans',
    svc.child.pid!,
    `http://127.0.0.1:${svc.port}/v1/scans`,
    load.bodies(tier),
    load,
    tier,
    svc.cluster,
    { authorization: `Bearer ${secret}` },
  );
}

/** One round's target checks; `collect` turns them into the report's targets (with medians over rounds). */
const checks: Check[] = [];
function check(name: string, target: string, value: number, unit: string, met: boolean): void {
  checks.push({ name, target, value, unit, met });
}
const scalingRounds: ScalingRow[][] = [];

/** Targets (per round, and medians when there are several), median ratios and scaling rows. */
function collect(): void {
  targets.push(...targetsOf(checks));
  if (repeat > 1) ratios.push(...medianRatios(ratios));
  state.scaling = medianScaling(scalingRounds);
}

function ratio(run: RunRecord, base: RunRecord): number {
  const value = round3(run.summary.req_per_s / Math.max(base.summary.req_per_s, 1));
  ratios.push({ name: `${run.id} / ${base.id}`, of: run.id, to: base.id, value });
  return value;
}

async function standard(): Promise<void> {
  const load = loadFor('standard');
  const svc = await serviceWith(clusterArg ?? null);
  const base = await echoFor('standard', load);
  for (const tier of load.tiers) {
    const run = await scans('standard', load, tier, svc);
    const value = ratio(run, base);
    if (tier === 'fast' && load.chars === 1_000 && run.cluster === null) {
      check('standard, tier fast: throughput vs echo', '≥ 0.70', value, '', value >= 0.7);
      check('standard, tier fast: p99', '≤ 25 ms', run.summary.p99_ms, ' ms', run.summary.p99_ms <= 25);
    }
  }
}

async function document(): Promise<void> {
  const load = loadFor('document');
  const svc = await serviceWith(clusterArg ?? null);
  const base = await echoFor('document', load);
  for (const tier of load.tiers) {
    const run = await scans('document', load, tier, svc);
    ratio(run, base);
    check(
      `document (${load.chars} chars), tier ${tier}: p95`,
      '≤ 100 ms',
      run.summary.p95_ms,
      ' ms',
      run.summary.p95_ms <= 100,
    );
  }
}

async function scale(): Promise<void> {
  const load = loadFor('scaling');
  const top = clusterArg ?? cpus().length;
  const tier = load.tiers[0]!;
  const measured: RunRecord[] = [];
  for (let n = 1; n <= top; n++) measured.push(await scans('scaling', load, tier, await serviceWith(n)));
  const base = await echoFor('scaling', load);
  const one = measured[0]!.summary.req_per_s;
  const rows = measured.map((run, i) => ({
    processes: i + 1,
    req_per_s: run.summary.req_per_s,
    efficiency: round3(run.summary.req_per_s / Math.max((i + 1) * one, 1)),
    vs_echo: ratio(run, base),
  }));
  scalingRounds.push(rows);
  for (const row of rows.slice(1))
    check(
      `scaling, tier ${tier}: efficiency at ${row.processes} processes`,
      '≥ 0.8',
      row.efficiency,
      '',
      row.efficiency >= 0.8,
    );
}

const when = new Date().toISOString();
let failed: unknown = null;
try {
  db = await openDatabase(args.embedded);
  echo = await start(['benchmarks/echo-server.ts'], { PORT: '0' }, /listening (\d+)/);
  say(`database: ${db.kind}${args.embedded ? ' (the first start initialises a cluster: ~20 s)' : ''}`);
  for (state.round = 1; state.round <= repeat; state.round++) {
    for (const s of scenarios) await { standard, document, scaling: scale }[s]();
  }
  collect();
} catch (err) {
  failed = err;
} finally {
  await state.service?.stop();
  if (echo) await stop(echo.child);
  await db?.dispose().catch(() => undefined);
}
if (failed) {
  process.stderr.write(`\nbenchmark failed: ${failed instanceof Error ? failed.message : String(failed)}\n`);
  process.exit(1);
}

const report: BenchReport = {
  when,
  machine: machineInfo(),
  settings: {
    scenarios,
    repeat,
    duration_s: duration,
    warmup_s: warmup,
    database: db!.kind,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
  },
  runs,
  ratios,
  scaling: state.scaling,
  targets,
};
const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const stamp = when.replace(/[:.]/g, '-');
const jsonFile = path.join(dir, `${stamp}.json`);
const htmlFile = path.join(dir, `${stamp}.html`);
writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(htmlFile, renderHtml(report));

if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const out: string[] = ['', 'runs'];
  for (const r of runs)
    out.push(
      `  ${r.id.padEnd(40)} ${formatSummary(r.summary)}${r.cpu ? `\n  ${''.padEnd(40)} ${formatCpu(r.cpu)}` : ''}`,
    );
  out.push('ratios (req/s; the headline)');
  for (const r of ratios) out.push(`  ${r.name.padEnd(62)} ${r.value}`);
  if (state.scaling) {
    out.push(repeat > 1 ? `scaling (median of ${repeat} rounds)` : 'scaling');
    for (const s of state.scaling)
      out.push(
        `  ${String(s.processes).padStart(2)} processes  ${s.req_per_s} req/s  efficiency ${s.efficiency}  vs echo ${s.vs_echo}`,
      );
  }
  if (targets.length) out.push('targets');
  for (const t of targets) out.push(`  ${t.met ? 'met    ' : 'not met'}  ${t.name}: ${t.value} (wanted ${t.target})`);
  out.push(`written ${path.relative(ROOT, jsonFile)}, ${path.relative(ROOT, htmlFile)}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(0);
