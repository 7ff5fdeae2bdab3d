/**
 * The detector-result cache's hit path, in process: `engine.scan` per operation for a miss (no cache),
 * a miss with the cache on (a new text each time: key hash + lookup + store on top of the detectors),
 * a local hit (the LRU) and a Redis hit (a local level that keeps nothing, so every scan reads Redis),
 * at 1,000 and 30,000 characters. Run: `npm run bench:cache [-- --tier fast|accurate|auto] [--threads N]
 * [--rounds N] [--budget-ms N] [--json]`. Default: the fast tier, no model pool (in-process detectors);
 * the Redis rows need REDIS_URL (default redis://127.0.0.1:6379) and are left out when it does not answer.
 */
import { parseArgs } from 'node:util';
import type { Tier } from '../engine/detector.ts';
import { resultCacheKey, ScanEngine, type ResultCache, type ScanInput } from '../engine/pipeline.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics } from '../lib/metrics.ts';
import { createRedis, waitForRedis, type Redis } from '../lib/redis.ts';
import { startScanning } from '../server/scanning.ts';
import { TwoLevelResultCache } from '../services/result-cache.ts';
import { textOf } from './fixtures.ts';

const { values: args } = parseArgs({
  options: {
    tier: { type: 'string', default: 'fast' },
    threads: { type: 'string', default: '0' },
    rounds: { type: 'string', default: '3' },
    'budget-ms': { type: 'string', default: '700' },
    json: { type: 'boolean', default: false },
  },
});
const tier = args.tier as Tier;
const rounds = Number(args.rounds);
const budgetMs = Number(args['budget-ms']);
const SIZES = [1_000, 30_000];

/** Mean µs per operation over as many runs as fit in the budget (at least 20), after 5 warm-up runs. */
async function perOp(fn: (i: number) => Promise<unknown>): Promise<{ us: number; runs: number }> {
  for (let i = 0; i < 5; i++) await fn(-1 - i);
  let runs = 0;
  const began = performance.now();
  const end = began + budgetMs;
  while (runs < 20 || performance.now() < end) {
    await fn(runs++);
    if (runs >= 200_000) break;
  }
  return { us: ((performance.now() - began) * 1000) / runs, runs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const scanning = await startScanning(
  {
    WORKER_THREADS: Number(args.threads),
    POOL_QUEUE_MAX: 4096,
    POOL_MAX_BATCH: 32,
    POOL_SLICE_MS: 5,
    MODELS_DIR: undefined,
    SEMANTIC_WINDOW_CACHE: 0,
  },
  createMetrics(false),
  createLogger('warn'),
);
const registry = scanning.engine.registry;
// what a scan that names no detectors runs (the key covers each one's name, version and model)
const selected = registry.defaults;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis | null = createRedis(redisUrl, () => undefined);
if (!(await waitForRedis(redis, 2_000))) {
  redis.disconnect();
  redis = null;
}
const prefix = `cf_bench_${process.pid}:`;
const cached = (cache: ResultCache) => new ScanEngine(registry, undefined, cache);
const engines: [string, ScanEngine, 'same' | 'new'][] = [
  ['miss (no cache)', scanning.engine, 'same'],
  [
    'miss (cache on: hash + lookup + store)',
    cached(new TwoLevelResultCache({ maxBytes: 256 << 20, redis: null, prefix, ttlSeconds: 60 })),
    'new',
  ],
  ['hit (local)', cached(new TwoLevelResultCache({ maxBytes: 64 << 20, redis: null, prefix, ttlSeconds: 60 })), 'same'],
];
// maxBytes 1: the local level keeps nothing, so each scan is a Redis GET + JSON parse + shape check
if (redis)
  engines.push([
    'hit (redis)',
    cached(new TwoLevelResultCache({ maxBytes: 1, redis, prefix, ttlSeconds: 60 })),
    'same',
  ]);

const rows: { what: string; chars: number; us_per_op: number; runs: number }[] = [];
for (const chars of SIZES) {
  const base = textOf(chars, 'mixed');
  const input = (texts: 'same' | 'new', r: number, i: number): ScanInput => ({
    surface: 'user_message',
    // a new text each run: same length, a different tail (every run misses)
    text: texts === 'new' ? `${base.slice(0, chars - 12)}${String(r * 1e6 + i + 10).padStart(12, '0')}` : base,
    tier,
    cacheScope: 'org_bench',
  });
  const cases: [string, (r: number, i: number) => Promise<unknown>][] = [
    ...engines.map(([what, engine, texts]): [string, (r: number, i: number) => Promise<unknown>] => [
      what,
      (r, i) => engine.scan(input(texts, r, i), { deadlineAt: Date.now() + 60_000 }),
    ]),
    // the part of every cached scan that grows with the text: the key's SHA-256
    ['key alone (sha256 over the text)', async () => resultCacheKey('org_bench', 'user_message', tier, selected, base)],
  ];
  // rounds interleave the cases, so a slow moment of a shared machine does not land on one case only
  const samples = new Map<string, { us: number[]; runs: number }>(cases.map(([w]) => [w, { us: [], runs: 0 }]));
  for (let r = 0; r < rounds; r++)
    for (const [what, fn] of cases) {
      const m = await perOp((i) => fn(r, i));
      samples.get(what)!.us.push(m.us);
      samples.get(what)!.runs += m.runs;
    }
  for (const [what, { us, runs }] of samples) {
    const mid = median(us);
    rows.push({ what, chars, us_per_op: Math.round(mid * 10) / 10, runs });
    if (!args.json)
      process.stdout.write(
        `${what.padEnd(40)} ${String(chars).padStart(6)} chars  ${mid.toFixed(1).padStart(10)} µs/op  (median of ${rounds} rounds, ${runs} runs)\n`,
      );
  }
}
if (!redis && !args.json) process.stdout.write(`(no Redis at ${redisUrl}: the redis rows are left out)\n`);
if (args.json) process.stdout.write(`${JSON.stringify({ tier, threads: Number(args.threads), rows }, null, 2)}\n`);
if (redis) {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}
await scanning.close();
