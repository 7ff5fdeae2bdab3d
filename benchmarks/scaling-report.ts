/**
 * bench:scaling's report (benchmarks/scaling.ts): its shape, the capacity model over its measurements,
 * its rendering, and --spread (medians and spreads of earlier reports).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatSummary, type RunSummary } from './measure.ts';
import type { machineInfo } from './processes.ts';
import {
  busiestRedisCpuPerCommand,
  commitFit,
  DEFAULT_ASSUMPTIONS,
  deliveryCost,
  limits,
  plan,
  rollupRate,
  spread,
  unitCost,
  type Inputs,
  type RollupRun,
  type StackCounters,
  type UnitCost,
} from './scaling-model.ts';

const RATES = [1_000, 10_000, 100_000];
type Fail = (message: string) => never;

/** The report's shape (also what --spread reads back). */
export interface ScalingReport {
  when: string;
  command: string;
  machine: ReturnType<typeof machineInfo> & { loadavg_1m_at_start: number; postgres: string; redis: string };
  settings: Record<string, unknown>;
  tiers: Record<string, { load: RunSummary; scans: number; per_scan: UnitCost }>;
  webhooks: {
    tier: string;
    webhooks: number;
    scans: number;
    deliveries: number;
    drain_after_load_s: number;
    per_scan: UnitCost;
    per_delivery: UnitCost;
    /** The pump alone draining a backlog (no scans): what sending one delivery costs. */
    backlog: { deliveries: number; seconds: number; per_s: number; per_delivery: UnitCost } | null;
  } | null;
  rollup: { runs: (RollupRun & ReturnType<typeof rollupRate>)[] } | null;
  assumptions: typeof DEFAULT_ASSUMPTIONS;
  plans: Record<string, { plans: ReturnType<typeof plan>[]; limits: ReturnType<typeof limits> }>;
  /** PostgreSQL CPU per scan = per_scan_ms + per_commit_ms × transactions per scan, fitted over the tiers. */
  postgres_cost_fit: ReturnType<typeof commitFit>;
  /** Redis CPU per command at the busiest load: what the plans use. */
  redis_cpu_ms_per_command: number;
}

/**
 * The capacity model over a report's measurements (scaling-model.ts): the PostgreSQL fit, and per tier
 * the plans at RATES and the limits. Redis CPU per command is taken from the busiest load (Redis spends
 * less per command the more commands each wake-up finds: the slower tiers' loads overstate it).
 */
export function model(r: ScalingReport, assumptions: typeof DEFAULT_ASSUMPTIONS): void {
  const measured = Object.values(r.tiers).map((t) => t.per_scan);
  r.postgres_cost_fit = commitFit(measured);
  r.assumptions = assumptions;
  r.redis_cpu_ms_per_command = busiestRedisCpuPerCommand(measured);
  r.plans = {};
  const steady = r.rollup?.runs.at(-1);
  const zero = unitCost(noCounts(), noCounts(), 1);
  for (const [tier, t] of Object.entries(r.tiers)) {
    const inputs: Inputs = {
      scan: { ...t.per_scan, redis_cpu_ms: r.redis_cpu_ms_per_command * t.per_scan.redis_commands },
      delivery: r.webhooks ? deliveryCost(r.webhooks.per_delivery, r.webhooks.backlog?.per_delivery ?? null) : zero,
      rollup_scans_per_db_cpu_s: steady?.scans_per_db_cpu_s ?? 0,
      // one backend per run: its CPU rate is a dedicated core's (scaling-model.ts Inputs)
      rollup_scans_per_run_s: steady?.scans_per_db_cpu_s ?? 0,
    };
    r.plans[tier] = { plans: RATES.map((x) => plan(x, inputs, assumptions)), limits: limits(inputs, assumptions) };
  }
}

/** Counters all zero: the delivery cost of a run without the webhook phase. */
function noCounts(): StackCounters {
  return {
    serviceCpuS: 0,
    postgresCpuS: 0,
    redisCpuS: 0,
    walBytes: 0,
    xactCommit: 0,
    tupInserted: 0,
    tupUpdated: 0,
    tupDeleted: 0,
    redisCalls: {},
    tableBytes: {},
  };
}

/** `node_cores=32,deliveries_per_scan=0.5` over the default assumptions. */
export function assumptionsOf(spec: string | undefined, fail: Fail): typeof DEFAULT_ASSUMPTIONS {
  const out = { ...DEFAULT_ASSUMPTIONS };
  for (const pair of (spec ?? '').split(',').filter(Boolean)) {
    const [k, v] = pair.split('=').map((x) => x.trim());
    if (!k || !(k in out))
      fail(`--assume: unknown assumption ${JSON.stringify(k)} (one of ${Object.keys(out).join(', ')})`);
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) fail(`--assume: ${k} takes a positive number (got ${JSON.stringify(v)})`);
    out[k as keyof typeof out] = n;
  }
  return out;
}

export function formatCost(c: UnitCost): string {
  return `service ${c.service_cpu_ms} ms CPU, PostgreSQL ${c.postgres_cpu_ms} ms CPU, WAL ${c.wal_bytes} B, ${c.transactions} transactions, tuples +${c.tuples_inserted} ~${c.tuples_updated} -${c.tuples_deleted}, Redis ${c.redis_commands} commands ${c.redis_cpu_ms} ms CPU, storage ${c.storage_bytes} B`;
}

export function render(r: ScalingReport): string {
  const m = r.machine;
  const out = [
    '',
    `machine: ${m.cpus} × ${m.cpu}, ${m.memory_gib} GiB, ${m.platform}, node ${m.node}, load ${m.loadavg_1m_at_start} at start`,
    `         ${m.postgres}; ${m.redis.split(' ').slice(0, 3).join(' ')}; commit ${m.git_commit}${m.git_dirty ? ' (dirty)' : ''}`,
    'per scan (the mix, one service process, private PostgreSQL and Redis)',
  ];
  for (const [tier, t] of Object.entries(r.tiers)) {
    out.push(`  ${tier.padEnd(9)} ${formatSummary(t.load)}`);
    out.push(`  ${''.padEnd(9)} ${formatCost(t.per_scan)}`);
    out.push(
      `  ${''.padEnd(9)} scans per service core: ${Math.round(1000 / Math.max(t.per_scan.service_cpu_ms, 1e-9))}; per PostgreSQL core: ${Math.round(1000 / Math.max(t.per_scan.postgres_cpu_ms, 1e-9))}`,
    );
    out.push(
      `  ${''.padEnd(9)} Redis commands: ${JSON.stringify(t.per_scan.redis_commands_by_name)}; storage: ${JSON.stringify(t.per_scan.storage_bytes_by_table)}`,
    );
  }
  if (r.postgres_cost_fit)
    out.push(
      `  PostgreSQL CPU per scan ≈ ${r.postgres_cost_fit.per_scan_ms} ms + ${r.postgres_cost_fit.per_commit_ms} ms × transactions per scan (least squares over the tiers)`,
    );
  if (r.webhooks) {
    const w = r.webhooks;
    out.push(
      `webhooks: ${w.webhooks} subscribed to every scan event, tier ${w.tier}: ${w.deliveries} deliveries for ${w.scans} scans, drained ${w.drain_after_load_s} s after the load`,
    );
    out.push(`  per delivery (with − without): ${formatCost(w.per_delivery)}`);
    if (w.backlog)
      out.push(
        `  backlog of ${w.backlog.deliveries}: ${w.backlog.seconds} s, ${w.backlog.per_s} deliveries/s; per delivery: ${formatCost(w.backlog.per_delivery)}`,
      );
  }
  if (r.rollup)
    for (const x of r.rollup.runs)
      out.push(
        `rollup ${x.label}: ${x.scans_read} scans, ${x.buckets} buckets, ${x.wall_s} s, PostgreSQL ${x.postgres_cpu_s} s CPU, WAL ${x.wal_bytes} B → ${x.scans_per_wall_s} scans/s wall, ${x.scans_per_db_cpu_s} scans per PostgreSQL CPU s`,
      );
  out.push(`capacity model (assumptions: ${JSON.stringify(r.assumptions)})`);
  for (const [tier, p] of Object.entries(r.plans)) {
    for (const x of p.plans)
      out.push(
        `  ${tier.padEnd(9)} ${String(x.scans_per_s).padStart(7)}/s: ${x.service_cores} service cores → ${x.nodes} nodes; DB cores scans ${x.db_cores_scans} + webhooks ${x.db_cores_webhooks} + rollup ${x.db_cores_rollup} → provision ${x.db_cores_provisioned}; WAL ${x.wal_mib_per_s} MiB/s; ${x.storage_gib_per_day} GiB/day; Redis ${x.redis_commands_per_s} cmd/s, ${x.redis_cores} cores → ${x.redis_shards} shard(s); rollup run at bucket end ${x.rollup_run_s_at_bucket_end} s`,
      );
    const l = p.limits;
    out.push(
      `  ${tier.padEnd(9)} limits (scans/s): DB inserts ${l.db_scan_inserts}, DB all ${l.db_all}, WAL ${l.wal}, rollup freshness ${l.rollup_freshness}, Redis shard ${l.redis_shard}; first: ${l.first}`,
    );
  }
  return out.join('\n');
}

/** --spread: the median and (max − min) / median of the headline numbers over earlier reports. */
export function printSpread(files: string[], assume: string | undefined, fail: Fail): void {
  if (files.length < 2)
    fail('--spread takes two or more report files, comma-separated (benchmarks/results/scaling-*.json)');
  const reports = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as ScalingReport);
  const rows: [string, number[]][] = [];
  const keys: (keyof UnitCost)[] = [
    'service_cpu_ms',
    'postgres_cpu_ms',
    'wal_bytes',
    'tuples_inserted',
    'redis_commands',
    'redis_cpu_ms',
    'storage_bytes',
  ];
  for (const tier of Object.keys(reports[0]!.tiers)) {
    rows.push([`${tier} req/s`, reports.map((r) => r.tiers[tier]?.load.req_per_s ?? NaN)]);
    for (const k of keys)
      rows.push([`${tier} ${k}`, reports.map((r) => (r.tiers[tier]?.per_scan[k] as number) ?? NaN)]);
  }
  const fits = reports.map((r) => commitFit(Object.values(r.tiers).map((t) => t.per_scan)));
  if (fits.every(Boolean)) {
    rows.push(['PostgreSQL ms per scan (fit)', fits.map((f) => f!.per_scan_ms)]);
    rows.push(['PostgreSQL ms per commit (fit)', fits.map((f) => f!.per_commit_ms)]);
  }
  if (reports.every((r) => r.webhooks))
    for (const k of keys) rows.push([`delivery ${k}`, reports.map((r) => r.webhooks!.per_delivery[k] as number)]);
  if (reports.every((r) => r.webhooks?.backlog)) {
    rows.push(['backlog deliveries/s', reports.map((r) => r.webhooks!.backlog!.per_s)]);
    for (const k of keys)
      rows.push([`backlog delivery ${k}`, reports.map((r) => r.webhooks!.backlog!.per_delivery[k] as number)]);
  }
  if (reports.every((r) => r.rollup?.runs.length))
    for (const i of reports[0]!.rollup!.runs.keys()) {
      rows.push([`rollup #${i + 1} scans/wall s`, reports.map((r) => r.rollup!.runs[i]?.scans_per_wall_s ?? NaN)]);
      rows.push([`rollup #${i + 1} scans/DB CPU s`, reports.map((r) => r.rollup!.runs[i]?.scans_per_db_cpu_s ?? NaN)]);
    }
  const out = [`${files.length} runs: ${files.map((f) => path.basename(f)).join(', ')}`];
  for (const [name, values] of rows) {
    const s = spread(values);
    out.push(
      `  ${name.padEnd(34)} ${values.join(' / ').padEnd(40)} median ${s.median}  spread ${Math.round(s.spread * 100)} %`,
    );
  }
  const median = medianReport(reports);
  model(median, assumptionsOf(assume, fail));
  out.push('', 'the capacity model over the medians of these runs:');
  out.push(
    ...render(median)
      .split('\n')
      .slice(
        render(median)
          .split('\n')
          .findIndex((l) => l.startsWith('capacity')),
      ),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Every numeric field the median over `values` (objects of one shape); other fields from the first. */
function medianOf<T>(values: readonly T[]): T {
  const first = values[0]!;
  if (typeof first === 'number') return spread(values as unknown as number[]).median as T;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return first;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(first))
    out[k] = medianOf(values.map((v) => (v as Record<string, unknown>)[k] ?? (first as Record<string, unknown>)[k]));
  return out as T;
}

/** A report whose measurements are the medians of `reports` (the first one's machine and settings). */
function medianReport(reports: readonly ScalingReport[]): ScalingReport {
  const r = structuredClone(reports[0]!);
  for (const tier of Object.keys(r.tiers)) r.tiers[tier] = medianOf(reports.map((x) => x.tiers[tier]!));
  if (reports.every((x) => x.webhooks)) r.webhooks = medianOf(reports.map((x) => x.webhooks!));
  if (reports.every((x) => x.rollup?.runs.length === r.rollup?.runs.length) && r.rollup)
    r.rollup.runs = r.rollup.runs.map((_, i) => medianOf(reports.map((x) => x.rollup!.runs[i]!)));
  return r;
}
