/**
 * The HTTP benchmark: the service under autocannon next to two baselines in the same run, a bare
 * Express JSON echo (echo-server.ts: no durable work) and the durable echo (durable-echo.ts: the
 * service's Express stack, body validation and API-key authentication from the key cache, and one
 * allowed scan's row committed through the group-commit writer before it answers: everything a scan
 * request does but detection). Each scan run is reported as a ratio to both: over the durable echo it
 * is the share of the possible it reaches; the durable echo over the bare echo is the price of
 * durability (PostgreSQL's share shows in its CPU per request).
 *
 *   npm run bench -- [--scenario standard|mix|document|scaling|all] [--tier fast|accurate|auto[,…]]
 *                    [--connections N[,N…]] [--duration S] [--warmup S] [--body-chars N] [--surface S]
 *                    [--cluster N] [--repeat N] [--repeat-texts] [--embedded] [--profile DIR] [--json]
 *
 * Scenarios (explicit flags apply to every scenario of the run; otherwise each has its defaults):
 * - standard: `POST /v1/scans`, 60% benign / 20% injection / 20% PII bodies of 1,000 characters,
 *   surface user_message, tier fast, 50 connections; `--cluster N` runs the service with N processes.
 *   Targets: ≥ 0.35 of the bare echo and ≥ 0.60 of the durable echo with p99 ≤ 50 ms.
 * - mix: the realistic mix (mix-fixtures.ts: mostly benign chat, some assistant output, tool results
 *   and documents, the same system prompts and MCP tool descriptions again and again, a few attacks
 *   and PII), tier auto, 50 connections; `--body-chars` and `--surface` do not apply. Target: ≥ 0.20
 *   of the bare echo. Its service counters say which share of scans reached the sentence encoder.
 * - document: 30,000-character documents (benign paragraphs, the occasional injection or PII
 *   sentence), surface document, tier auto, at 1 and at 8 connections (each service run beside the
 *   echoes at the same count); target p95 ≤ 150 ms at 1 connection, 8 reported. The target is a
 *   latency: with c documents in flight each waits for the others' share of the cores (p95 grows
 *   about c-fold), so more connections measure a loaded service rather than a document's latency.
 * - scaling: the standard load against `--cluster n` for n = 1..N (N = --cluster, default the CPU
 *   count); efficiency = throughput(n) / (n × throughput(1)), target ≥ 0.8.
 * `--connections 1,8` runs each scenario at each count.
 *
 * Every request's text is its own: a 6-digit marker from one counter is spliced into slots woven
 * through each text (body-source.ts; both echoes get the same bodies), so neither the encoder's window
 * LRU nor the result cache turns a run into cache hits; the mix's system prompts and tool descriptions
 * are its only deliberate repeats. `--repeat-texts` sends the same few bodies again and again instead
 * (the old behaviour), to measure cache hits; targets are checked only on unique texts.
 *
 * Around each measured service run the service's GET /metrics is scraped and the deltas reported:
 * `cf_detector_cascade_total` (per detector, the share of auto-tier scans that went on to the
 * encoder), `cf_extra_model_runs_total` (per operator's model and tier, the share of the scans it was
 * due on that it ran on: the service inherits EXTRA_MODELS_DIR from this environment) and, when the
 * service has one, `cf_scan_cache_total` (result cache lookups). With
 * `--cluster` each process keeps its own counters, so those runs carry none.
 *
 * `--repeat N` runs the scenarios N times in rounds (echoes and service interleaved, each round with
 * its own echoes), so slow drift on a shared machine hits both sides alike; ratios and targets are then
 * reported per round and as the median over the rounds (a target is met when its median is).
 *
 * The service runs as a child process on DATABASE_URL, else a fresh `cf_bench` database on the local
 * PostgreSQL, or with --embedded on its own embedded PostgreSQL in a temporary DATA_DIR. Each target
 * is warmed up before it is measured. The durable echo starts once the service has (on its database,
 * with the key bootstrapped for the run) and stops before it. Writes benchmarks/results/<timestamp>.json and .html.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { SURFACES } from '../engine/detector.ts';
import { cpuPerRequest, formatCpu, sampleCpu } from './cpu.ts';
import { bodySource, type BodyTemplate } from './body-source.ts';
import { loadFor as loadOf, type Load } from './bench-loads.ts';
import { DURABLE_ECHO_PATH } from './durable-echo.ts';
import { measure, type Measurement } from './measure.ts';
import { medianRatios, medianScaling, round3, targetChecks, targetsOf, type Check } from './rounds.ts';
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
import { formatReport } from './report-text.ts';
import {
  bootstrapKey,
  METRICS_TOKEN,
  openDatabase,
  startDurableEcho,
  startService,
  type Database,
  type Service,
} from './service.ts';
import { formatServiceMetrics, parseCounters, serviceMetrics, type Counters } from './service-metrics.ts';

const USAGE =
  'usage: npm run bench -- [--scenario standard|mix|document|scaling|all] [--tier fast|accurate|auto[,…]] [--connections N[,N…]] [--duration S] [--warmup S] [--body-chars N] [--surface S] [--cluster N] [--repeat N] [--repeat-texts] [--embedded] [--profile DIR] [--json]';

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
  // The same few bodies again and again (no per-request marker): to measure cache hits.
  'repeat-texts': { type: 'boolean', default: false },
  embedded: { type: 'boolean', default: false },
  // The service writes V8 CPU profiles (.cpuprofile, one per process and thread) here when it stops.
  profile: { type: 'string' },
  json: { type: 'boolean', default: false },
});

const SCENARIOS: Scenario[] = ['standard', 'mix', 'document', 'scaling'];
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
const connectionsArg = args.connections?.split(',').map((c) => positiveInt('connections', c.trim()));
const unique = !args['repeat-texts'];
const charsArg = positiveInt('body-chars', args['body-chars']);
const clusterArg = positiveInt('cluster', args.cluster);
const repeat = positiveInt('repeat', args.repeat)!;
const progress = !args.json;
const say = (s: string) => progress && process.stderr.write(`${s}\n`);

const loadFor = (scenario: Scenario): Load =>
  loadOf(scenario, { connections: connectionsArg, chars: charsArg, surface: args.surface, tiers });

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
let durableEcho: Awaited<ReturnType<typeof start>> | null = null;
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

/** The service's scraped counters (null when it cannot be read: a cluster, metrics off). */
async function scrape(svc: Service): Promise<Counters | null> {
  if (svc.cluster !== null) return null; // each process counts its own: one scrape would see one of them
  const r = await fetch(`http://127.0.0.1:${svc.port}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  }).catch(() => null);
  return r?.ok ? parseCounters(await r.text()) : null;
}

/** What one measured run is: its target process (CPU accounting), URL, bodies and the service when scanning. */
interface Target {
  kind: RunRecord['target'];
  pid: number;
  url: string;
  templates: BodyTemplate[];
  tier: string | null;
  svc: Service | null;
  headers: Record<string, string>;
}

async function record(scenario: Scenario, t: Target, load: Load, connections: number): Promise<RunRecord> {
  const cluster = t.svc?.cluster ?? null;
  const id = `${scenario}: ${t.kind}${t.tier ? ` tier=${t.tier}` : ''}${cluster ? ` cluster=${cluster}` : ''}${load.connections.length > 1 ? ` c=${connections}` : ''}${roundTag()}`;
  const label = id.replace(': ', ' ');
  const bodies = bodySource(t.templates, unique);
  const options = { connections, headers: t.headers, progress };
  if (warmup > 0) await measure(t.url, bodies, { ...options, seconds: warmup, label: `warm-up ${label}` });
  const counters = t.svc ? await scrape(t.svc) : null;
  const before = sampleCpu(t.pid);
  const m: Measurement = await measure(t.url, bodies, { ...options, seconds: duration, label });
  const cpu = cpuPerRequest(before, sampleCpu(t.pid), m.summary.requests);
  const after = counters && t.svc ? await scrape(t.svc) : null;
  const metrics = counters && after ? serviceMetrics(counters, after) : null;
  if (cpu) say(`  ${formatCpu(cpu)}`);
  if (metrics) say(`  ${formatServiceMetrics(metrics)}`);
  const run: RunRecord = {
    id,
    round: state.round,
    scenario,
    target: t.kind,
    tier: t.tier,
    cluster,
    connections,
    body_chars: load.chars,
    surface: load.surface,
    duration_s: duration,
    ...m,
    cpu,
    service_metrics: metrics,
  };
  runs.push(run);
  return run;
}

type Baseline = 'echo' | 'durable-echo';
// Each baseline once per distinct load (bodies, connections) and round: the ratio partners in every scenario.
const baselineRuns = new Map<string, RunRecord>();
async function baselineFor(kind: Baseline, scenario: Scenario, load: Load, connections: number): Promise<RunRecord> {
  const bodies = scenario === 'scaling' ? 'standard' : scenario;
  const key = `${kind}|${state.round}|${bodies}|${load.chars}|${load.surface}|${connections}`;
  const done = baselineRuns.get(key);
  if (done) return done;
  // On the service's database with the run's key, so only once the service has started.
  if (kind === 'durable-echo' && !durableEcho) durableEcho = await startDurableEcho(db!);
  const target = kind === 'echo' ? echo! : durableEcho!;
  const run = await record(
    scenario,
    {
      kind,
      pid: target.child.pid!,
      url: `http://127.0.0.1:${target.port}${kind === 'echo' ? '/echo' : DURABLE_ECHO_PATH}`,
      templates: load.templates(load.tiers[0]!),
      tier: null,
      svc: null,
      headers: kind === 'echo' ? {} : { authorization: `Bearer ${secret}` },
    },
    load,
    connections,
  );
  baselineRuns.set(key, run);
  return run;
}

/** Both baselines of a load; the first time, also the durable echo's ratio to the bare one (the price of durability). */
async function baselinesFor(scenario: Scenario, load: Load, connections: number) {
  const measured = baselineRuns.size;
  const bare = await baselineFor('echo', scenario, load, connections);
  const durable = await baselineFor('durable-echo', scenario, load, connections);
  if (baselineRuns.size > measured) ratio(durable, bare);
  return { bare, durable };
}

async function scans(scenario: Scenario, load: Load, tier: string, svc: Service, connections: number) {
  const target: Target = {
    kind: 'scans',
    pid: svc.child.pid!,
    url: `http://127.0.0.1:${svc.port}/v1/scans`,
    templates: load.templates(tier),
    tier,
    svc,
    headers: { authorization: `Bearer ${secret}` },
  };
  return record(scenario, target, load, connections);
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

/** standard, mix and document: each connection count's echo, then the service on each tier, checked against the targets. */
async function scenario(name: Scenario): Promise<void> {
  const load = loadFor(name);
  const svc = await serviceWith(clusterArg ?? null);
  for (const connections of load.connections) {
    const { bare, durable } = await baselinesFor(name, load, connections);
    for (const tier of load.tiers) {
      const run = await scans(name, load, tier, svc, connections);
      const vs = { vs_echo: ratio(run, bare), vs_durable_echo: ratio(run, durable) };
      if (!unique) continue; // repeated texts flatter the service: no target is checked on them
      for (const c of targetChecks({ ...run, ...vs, p95_ms: run.summary.p95_ms, p99_ms: run.summary.p99_ms }))
        checks.push(c);
    }
  }
}

async function scale(): Promise<void> {
  const load = loadFor('scaling');
  const connections = load.connections[0]!;
  const top = clusterArg ?? cpus().length;
  const tier = load.tiers[0]!;
  const measured: RunRecord[] = [];
  for (let n = 1; n <= top; n++) measured.push(await scans('scaling', load, tier, await serviceWith(n), connections));
  const { bare, durable } = await baselinesFor('scaling', load, connections);
  const one = measured[0]!.summary.req_per_s;
  const rows = measured.map((run, i) => ({
    processes: i + 1,
    req_per_s: run.summary.req_per_s,
    efficiency: round3(run.summary.req_per_s / Math.max((i + 1) * one, 1)),
    vs_echo: ratio(run, bare),
    vs_durable_echo: ratio(run, durable),
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
    for (const s of scenarios) await (s === 'scaling' ? scale() : scenario(s));
  }
  collect();
} catch (err) {
  failed = err;
} finally {
  // Before the service: it may stop the embedded cluster the durable echo is connected to.
  if (durableEcho) await stop(durableEcho.child);
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
    bodies: unique ? 'unique' : 'repeated',
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
else process.stdout.write(formatReport(report, `${path.relative(ROOT, jsonFile)}, ${path.relative(ROOT, htmlFile)}`));
process.exit(0);
