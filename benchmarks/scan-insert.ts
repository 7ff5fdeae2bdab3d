/**
 * The scan insert path (store/scans.ts insertScans, the group-commit writer's one statement) with
 * named prepared statements (DATABASE_POOLER=none: parsed and planned once per connection) against
 * unnamed ones (DATABASE_POOLER=transaction: parsed and planned on every batch), and unnamed through
 * a real PgBouncer in transaction pooling mode, in the same run (docs/decisions/0015).
 *
 *   npm run bench:scan-insert -- [--batches 1000] [--batch-sizes 1,64] [--writers 4] [--rounds 3]
 *                                [--no-pgbouncer] [--keep] [--json]
 *
 * In a fresh database `cf_bench_scan_insert` on the local PostgreSQL (or DATABASE_URL), migrated:
 * for each round, batch size and variant (the variants' order rotating each round), the scans
 * table is emptied, then `--writers` writers each with a connection of their own insert batches of
 * that many scans until `--batches` batches are written. Reports scans/s and per-batch latency per
 * variant, and each variant's throughput over the named one's as a ratio (the median of the rounds'
 * ratios). Writes benchmarks/results/scan-insert-<timestamp>.json; drops the database unless --keep.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { systemClock } from '../lib/clock.ts';
import { createOrganization } from '../services/organizations.ts';
import { createPool, type Db, type PoolOptions } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { insertScans } from '../store/scans.ts';
import { liveScanRow } from './analytics-data.ts';
import { parseCli } from './cli.ts';
import { benchmarkDatabase } from './database.ts';
import { percentilesMs } from './measure.ts';
import { PgBouncer, pgbouncerInstalled } from './pgbouncer.ts';
import { machineInfo, ROOT } from './processes.ts';

const USAGE =
  'usage: npm run bench:scan-insert -- [--batches N] [--batch-sizes 1,64] [--writers N] [--rounds N] [--no-pgbouncer] [--keep] [--json]';
const {
  values: args,
  positiveInt,
  fail,
} = parseCli(USAGE, {
  batches: { type: 'string', default: '1000' },
  'batch-sizes': { type: 'string', default: '1,64' },
  writers: { type: 'string', default: '4' },
  rounds: { type: 'string', default: '3' },
  'no-pgbouncer': { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
});
const BATCHES = positiveInt('batches', args.batches);
const WRITERS = positiveInt('writers', args.writers);
const ROUNDS = positiveInt('rounds', args.rounds);
const SIZES = args['batch-sizes'].split(',').map((s) => positiveInt('batch-sizes', s.trim()));
if (SIZES.length === 0) fail('--batch-sizes needs at least one size');
const DB_NAME = 'cf_bench_scan_insert';
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);

const url = await benchmarkDatabase(DB_NAME);
const admin = createPool(url, 1, () => undefined);
await migrate(admin);
const org = await createOrganization(admin, systemClock, 'scan insert benchmark');

const withBouncer = !args['no-pgbouncer'] && pgbouncerInstalled();
if (!args['no-pgbouncer'] && !withBouncer) say('no /usr/sbin/pgbouncer: the PgBouncer variant is left out');
const server = new URL(url);
const bouncer = withBouncer
  ? await PgBouncer.start({
      serverHost: server.hostname,
      serverPort: Number(server.port || 5432),
      poolSize: WRITERS,
    })
  : null;

interface Variant {
  name: string;
  url: string;
  options: PoolOptions;
}
const VARIANTS: Variant[] = [
  { name: 'named', url, options: { pooler: 'none' } },
  { name: 'unnamed', url, options: { pooler: 'transaction' } },
  ...(bouncer
    ? [{ name: 'unnamed via PgBouncer', url: bouncer.through(url), options: { pooler: 'transaction' } }]
    : []),
] as Variant[];

interface Run {
  rows_per_s: number;
  batches_per_s: number;
  latency: ReturnType<typeof percentilesMs>;
}

/** `--batches` batches of `size` scans by `--writers` writers on a pool of `--writers` connections. */
async function run(v: Variant, size: number, seq: { n: number }): Promise<Run> {
  await admin.query('TRUNCATE scans CASCADE');
  const db: Db = createPool(v.url, WRITERS, () => undefined, v.options);
  try {
    // Every connection opened (and, named, the statement prepared) before the clock starts.
    await Promise.all(
      Array.from({ length: WRITERS }, () => insertScans(db, [liveScanRow(org.id, seq.n++)]).then(() => undefined)),
    );
    await admin.query('TRUNCATE scans CASCADE');
    const latencies: number[] = [];
    let left = BATCHES;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (left > 0) {
          left--;
          const rows = Array.from({ length: size }, () => liveScanRow(org.id, seq.n++));
          const t0 = performance.now();
          await insertScans(db, rows);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      rows_per_s: Math.round((BATCHES * size) / seconds),
      batches_per_s: Math.round(BATCHES / seconds),
      latency: percentilesMs(latencies),
    };
  } finally {
    await db.end();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const seq = { n: 0 };
const runs: Record<string, Record<string, Run[]>> = {};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
      for (const v of order) {
        const r = await run(v, size, seq);
        ((runs[size] ??= {})[v.name] ??= []).push(r);
        say(
          `round ${round + 1}, batch ${size}, ${v.name}: ${r.rows_per_s} scans/s, ${r.batches_per_s} batches/s, p50 ${r.latency.p50_ms} ms, p99 ${r.latency.p99_ms} ms`,
        );
      }
    }
  }
} finally {
  await bouncer?.stop();
  await admin.end();
}

const summary = SIZES.map((size) => {
  const bySize = runs[size]!;
  const named = bySize.named!;
  return {
    batch_size: size,
    variants: VARIANTS.map((v) => {
      const rs = bySize[v.name]!;
      return {
        variant: v.name,
        rows_per_s_median: median(rs.map((r) => r.rows_per_s)),
        p50_ms_median: median(rs.map((r) => r.latency.p50_ms)),
        p99_ms_median: median(rs.map((r) => r.latency.p99_ms)),
        // Each round's throughput over the same round's named run: the machine's drift cancels.
        throughput_vs_named: Math.round(median(rs.map((r, i) => r.rows_per_s / named[i]!.rows_per_s)) * 1000) / 1000,
      };
    }),
  };
});

const report = {
  when: new Date().toISOString(),
  machine: machineInfo(),
  command: `npm run bench:scan-insert -- ${process.argv.slice(2).join(' ')}`.trim(),
  batches: BATCHES,
  writers: WRITERS,
  rounds: ROUNDS,
  summary,
  runs,
};
if (!args.keep && !process.env.DATABASE_URL) {
  const c = new pg.Client(new URL('/postgres', url).toString());
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(DB_NAME)} WITH (FORCE)`);
  await c.end();
}
const dir = path.join(ROOT, 'benchmarks/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `scan-insert-${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  for (const s of summary) {
    say(`batch of ${s.batch_size}:`);
    for (const v of s.variants)
      say(
        `  ${v.variant.padEnd(22)} ${String(v.rows_per_s_median).padStart(8)} scans/s  p50 ${v.p50_ms_median} ms  p99 ${v.p99_ms_median} ms  throughput vs named ${v.throughput_vs_named}`,
      );
  }
  say(`wrote ${path.relative(ROOT, file)}`);
}
