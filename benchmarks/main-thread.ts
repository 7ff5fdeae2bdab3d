/**
 * The scan engine's main-thread CPU per fast-tier scan, in process (no HTTP, no database): the standard
 * load's texts (1,000 characters, 60% benign, 20% injection, 20% PII, every text its own) scanned with
 * `concurrency` scans in flight through the real model pool, and the main thread's CPU read from
 * /proc/thread-self/schedstat (ns; Linux only) around each round. Also counts the pool tasks (thread hops)
 * per scan. Run: `npm run bench:main-thread -- [--scans N] [--rounds R] [--concurrency C] [--tier fast]
 * [--base DIR]`. `--base DIR`: an A/B in one process, rounds alternating between this tree's engine and
 * DIR's (another checkout, e.g. `git archive` of the commit before, with node_modules linked), each with
 * its own model threads; only one runs at a time.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Tier } from '../engine/detector.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics } from '../lib/metrics.ts';
import { startScanning } from '../server/scanning.ts';
import { textOf, type Mix } from './fixtures.ts';

const { values } = parseArgs({
  options: {
    scans: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '50' },
    tier: { type: 'string', default: 'fast' },
    threads: { type: 'string', default: '2' },
    base: { type: 'string' },
  },
});
const scans = Number(values.scans);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const tier = values.tier as Tier;

/** This thread's CPU time so far, ns. */
function threadCpuNs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
}

type Start = typeof startScanning;
type Metrics = ReturnType<typeof createMetrics>;
interface Side {
  name: string;
  scanning: Awaited<ReturnType<Start>>;
  metrics: Metrics;
}

async function side(name: string, start: Start, metrics: Metrics): Promise<Side> {
  const scanning = await start(
    {
      WORKER_THREADS: Number(values.threads),
      POOL_QUEUE_MAX: 16_384,
      POOL_TENANT_QUEUE_MAX: 4_096,
      POOL_MAX_BATCH: 32,
      POOL_SLICE_MS: 5,
      POOL_RESERVED_THREADS: 1,
      MODELS_DIR: undefined,
      SCAN_LONG_TEXT_CHARS: 20_000,
      SCAN_SLICE_MS: 2,
      SCAN_LONG_PER_ORG: 2,
    },
    metrics,
    createLogger('warn'),
  );
  return { name, scanning, metrics };
}

const sides = [await side('this tree', startScanning, createMetrics(false))];
if (values.base) {
  const root = path.resolve(values.base);
  const base = (await import(pathToFileURL(path.join(root, 'server/scanning.ts')).href)) as { startScanning: Start };
  const baseMetrics = (await import(pathToFileURL(path.join(root, 'lib/metrics.ts')).href)) as {
    createMetrics: typeof createMetrics;
  };
  sides.unshift(await side(`base ${values.base}`, base.startScanning, baseMetrics.createMetrics(false)));
}

const MIXES: Mix[] = ['benign', 'injection', 'benign', 'pii', 'benign'];
let counter = 0;
/** The next text: a fixture body with a reference number of its own, so no two texts are the same. */
function nextText(): string {
  const n = counter++;
  return `${textOf(988, MIXES[n % MIXES.length]!, n % 7)} Ref ${String(n).padStart(6, '0')}.`;
}

async function tasks(metrics: Metrics): Promise<number> {
  const m = await metrics.poolBatchTexts.get();
  return m.values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
}

/** Scans `n` texts, `concurrency` at a time. */
async function load(engine: Side['scanning']['engine'], n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await engine.scan(
        { surface: 'user_message', text: nextText(), tier },
        { deadlineAt: Date.now() + 30_000, tenant: 'org_bench' },
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

for (const x of sides) await load(x.scanning.engine, Math.min(scans, 1_000)); // warm-up: JIT, the pool's cost estimates
const results = new Map<string, number[]>(sides.map((x) => [x.name, []]));
for (let r = 0; r < rounds; r++)
  for (const x of sides) {
    const t0 = await tasks(x.metrics);
    const c0 = threadCpuNs();
    await load(x.scanning.engine, scans);
    const us = (threadCpuNs() - c0) / 1000 / scans;
    const tasksPerScan = ((await tasks(x.metrics)) - t0) / scans;
    results.get(x.name)!.push(us);
    process.stdout.write(
      `round ${r + 1} ${x.name}: main thread ${us.toFixed(1)} µs/scan, ${tasksPerScan.toFixed(2)} pool tasks/scan (${scans} scans, ${concurrency} in flight, tier ${tier})\n`,
    );
  }
for (const [name, us] of results) {
  const sorted = [...us].sort((a, b) => a - b);
  process.stdout.write(
    `${name}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs/scan (${sorted[0]!.toFixed(1)}–${sorted.at(-1)!.toFixed(1)})\n`,
  );
}
for (const x of sides) await x.scanning.close();
