/**
 * The legacy analysis API's latency (docs/legacy.md "Performance"): the real service (server/main.ts,
 * model pool of WORKER_THREADS, by default one thread per core) with its legacy listener, one
 * organization, key and analysis session.
 *
 *   npm run bench:legacy -- [--warm N] [--sequential N] [--connections N] [--duration S] [--json]
 *
 * - cold: the first long request after start-up (50,000 characters, long_prompt_injection=true, all
 *   three detections), the moment the service reports healthy and its processes have gone idle;
 * - warm: `--warm` (20) more such requests one after another, each a different document;
 * - standard: 1,000- and 5,000-character bodies (1,000 different documents per run, one paragraph in two with an
 *   injection or PII sentence), default detections (prompt_injection) and all three: `--sequential` (100) requests one after another,
 *   then autocannon on `--connections` (4) connections for `--duration` (10) seconds.
 *
 * Targets (the spec): a standard request under 200 ms; a long one in 2–10 s (the issue asks 50,000
 * characters in 2 s). Writes benchmarks/results/legacy-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseCli } from './cli.ts';
import { documentText } from './fixtures.ts';
import { measure, percentilesMs, type RunSummary } from './measure.ts';
import { freePort, machineInfo, ROOT } from './processes.ts';
import { bootstrapKey, openDatabase, startService, type Database, type Service } from './service.ts';

const USAGE = 'usage: npm run bench:legacy -- [--warm N] [--sequential N] [--connections N] [--duration S] [--json]';
const { values: args, positiveInt } = parseCli(USAGE, {
  warm: { type: 'string', default: '20' },
  sequential: { type: 'string', default: '100' },
  connections: { type: 'string', default: '4' },
  duration: { type: 'string', default: '10' },
  json: { type: 'boolean', default: false },
});
const warmCount = positiveInt('warm', args.warm);
const sequential = positiveInt('sequential', args.sequential);
const connections = positiveInt('connections', args.connections);
const duration = positiveInt('duration', args.duration);

const LONG_CHARS = 50_000;
const ALL = 'prompt_injection,pii,sensitive_path_detection';
const STANDARD_TARGET_MS = 200;
const LONG_TARGET_MS = 2_000;
const STANDARD_BODIES = 1_000;

interface Row {
  name: string;
  requests: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  req_per_s?: number;
  non_200: number;
  target_ms: number;
}

const say = (line: string) => !args.json && process.stderr.write(`${line}\n`);
const round1 = (n: number) => Math.round(n * 10) / 10;

/** One legacy request; its status, milliseconds and parsed body. */
async function post(base: string, key: string, query: string, text: string) {
  const began = performance.now();
  const res = await fetch(`${base}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain; charset=utf-8' },
    body: text,
  });
  const body = (await res.json()) as { analysis?: { chunks_analyzed?: number }[]; error?: { code: string } };
  return { status: res.status, ms: performance.now() - began, body };
}

function rowOf(name: string, ms: number[], non200: number, target: number): Row {
  const { n, ...p } = percentilesMs(ms);
  return { name, requests: n, ...p, non_200: non200, target_ms: target };
}

function rowOfRun(name: string, s: RunSummary, target: number): Row {
  return {
    name,
    requests: s.requests,
    p50_ms: s.p50_ms,
    p95_ms: s.p95_ms,
    p99_ms: s.p99_ms,
    max_ms: s.max_ms,
    req_per_s: s.req_per_s,
    non_200: s.non_2xx + s.errors + s.timeouts,
    target_ms: target,
  };
}

/** Sequential requests of `texts` (round-robin); a row of their latencies. */
async function sequentialRow(name: string, base: string, key: string, query: string, texts: string[], n: number) {
  const ms: number[] = [];
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const r = await post(base, key, query, texts[i % texts.length]!);
    ms.push(r.ms);
    if (r.status !== 200) bad++;
  }
  const row = rowOf(name, ms, bad, STANDARD_TARGET_MS);
  say(`  ${name}: p50 ${row.p50_ms}  p95 ${row.p95_ms}  p99 ${row.p99_ms}  max ${row.max_ms} ms`);
  return row;
}

/**
 * Standard bodies of `chars` characters: STANDARD_BODIES different documents (benign paragraphs, one in
 * two with an injection or a PII sentence) from `seed` on, each run its own, and far more windows than
 * the pool threads' embedding caches hold: no request answers from another's cached windows.
 */
function standardTexts(chars: number, seed: number): string[] {
  return Array.from({ length: STANDARD_BODIES }, (_, i) => documentText(chars, seed + i, 2));
}

/** The long document of request `i`: paragraphs with the occasional injection or PII sentence. */
const longDocument = (i: number) => documentText(LONG_CHARS, 100 + i, 6);

const when = new Date().toISOString();
const loadStart = round1(loadavg()[0]!);
let db: Database | undefined;
let service: Service | undefined;
const rows: Row[] = [];
let startup: Service['startup'] | undefined;
let cold: { ms: number; status: number; chunks: number | undefined } | undefined;
let failed: unknown = null;
try {
  const legacyPort = await freePort();
  const opened = await openDatabase(false, 'cf_bench_legacy');
  db = {
    ...opened,
    env: { ...opened.env, LEGACY_PORT: String(legacyPort), LEGACY_MONTHLY_QUOTA: '1000000000' },
  };
  say(
    `database: ${db.kind}; starting the service (model pool: WORKER_THREADS=${process.env.WORKER_THREADS ?? 'default'})`,
  );
  service = await startService(db, null);
  startup = service.startup;
  say(`  healthy after ${startup.healthy_ms} ms, idle after ${startup.idle_ms} ms more`);
  const key = await bootstrapKey(db);
  const created = await fetch(`http://127.0.0.1:${service.port}/v1/legacy-analyses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench:legacy' }),
  });
  const analysisId = ((await created.json()) as { analysis_id: number }).analysis_id;
  if (created.status !== 201) throw new Error(`creating the analysis session answered ${created.status}`);
  const base = `http://127.0.0.1:${legacyPort}/v1/analysis/${analysisId}`;
  const longQuery = `?long_prompt_injection=true&detections=${ALL}`;

  const first = await post(base, key, longQuery, longDocument(0));
  cold = { ms: round1(first.ms), status: first.status, chunks: first.body.analysis?.[0]?.chunks_analyzed };
  say(`  cold long request: ${cold.ms} ms (status ${cold.status}, ${cold.chunks} chunks)`);

  const warm: number[] = [];
  let warmBad = 0;
  for (let i = 1; i <= warmCount; i++) {
    const r = await post(base, key, longQuery, longDocument(i));
    warm.push(r.ms);
    if (r.status !== 200) warmBad++;
  }
  rows.push(rowOf(`long 50k chars, all three, warm, sequential`, warm, warmBad, LONG_TARGET_MS));
  say(`  warm long requests: p50 ${rows[0]!.p50_ms}  p95 ${rows[0]!.p95_ms}  max ${rows[0]!.max_ms} ms`);

  // Each run its own documents (seed), so none reads windows the previous run left in the caches.
  let seed = 1_000;
  for (const chars of [1_000, 5_000]) {
    for (const [label, query] of [
      ['default detections', ''],
      ['all three', `?detections=${ALL}`],
    ] as const)
      rows.push(
        await sequentialRow(
          `standard ${chars} chars, ${label}, sequential`,
          base,
          key,
          query,
          standardTexts(chars, (seed += STANDARD_BODIES)),
          sequential,
        ),
      );
  }
  for (const chars of [1_000, 5_000]) {
    for (const [label, query] of [
      ['default detections', ''],
      ['all three', `?detections=${ALL}`],
    ] as const) {
      const name = `standard ${chars} chars, ${label}, ${connections} connections`;
      const run = await measure(`${base}${query}`, standardTexts(chars, (seed += STANDARD_BODIES)), {
        connections,
        seconds: duration,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain; charset=utf-8' },
        label: name,
        progress: !args.json,
      });
      rows.push(rowOfRun(name, run.summary, STANDARD_TARGET_MS));
    }
  }
} catch (err) {
  failed = err;
} finally {
  await service?.stop();
  await db?.dispose().catch(() => undefined);
}
if (failed) {
  process.stderr.write(`\nbenchmark failed: ${failed instanceof Error ? failed.message : String(failed)}\n`);
  process.exit(1);
}

const report = {
  when,
  machine: machineInfo(),
  settings: {
    command: `npm run bench:legacy -- ${process.argv.slice(2).join(' ')}`.trim(),
    worker_threads: process.env.WORKER_THREADS ?? 'default (one per core)',
    long_chars: LONG_CHARS,
  },
  startup,
  cold,
  rows,
  /** 1-minute load average at the start and the end: others' work on a shared machine skews every number. */
  load_average: { start: loadStart, end: round1(loadavg()[0]!) },
};
const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `legacy-${when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);

if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const m = report.machine;
  const out = [
    '',
    `machine: ${m.cpus} × ${m.cpu}, ${m.memory_gib} GiB, ${m.platform}, node ${m.node}, ${m.git_commit}${m.git_dirty ? ' (dirty)' : ''}`,
    `command: ${report.settings.command}; WORKER_THREADS ${report.settings.worker_threads}`,
    `load average (1 min): ${report.load_average.start} at the start, ${report.load_average.end} at the end`,
    `start-up: healthy ${startup!.healthy_ms} ms (model pool warm), idle ${startup!.idle_ms} ms later`,
    `cold long request (first after start-up): ${cold!.ms} ms, status ${cold!.status} — target ≤ ${LONG_TARGET_MS} ms: ${cold!.ms <= LONG_TARGET_MS ? 'met' : 'not met'}`,
    '',
    `${'run'.padEnd(52)} ${'n'.padStart(5)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)} ${'req/s'.padStart(6)} ${'non-200'.padStart(7)}  target`,
  ];
  for (const r of rows)
    out.push(
      `${r.name.padEnd(52)} ${String(r.requests).padStart(5)} ${String(r.p50_ms).padStart(8)} ${String(r.p95_ms).padStart(8)} ${String(r.p99_ms).padStart(8)} ${String(r.max_ms).padStart(8)} ${String(r.req_per_s ?? '').padStart(6)} ${String(r.non_200).padStart(7)}  p95 ≤ ${r.target_ms} ms: ${r.p95_ms <= r.target_ms ? 'met' : 'not met'}`,
    );
  out.push(`written ${path.relative(ROOT, file)}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(0);
