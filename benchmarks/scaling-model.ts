/**
 * The arithmetic of `npm run bench:scaling` (benchmarks/scaling.ts), kept pure so it is unit-tested:
 * per-scan costs from two counter snapshots, the rollup's and the webhook fan-out's own costs, and
 * the capacity model docs/scaling.md applies to them (how many node cores, database cores, WAL and
 * Redis a target rate needs, and which part reaches its limit first).
 */

/** Cumulative counters of the whole stack at one moment (CPU in seconds, WAL as an LSN byte position). */
export interface StackCounters {
  /** CPU seconds of the service's process tree (every process, every thread). */
  serviceCpuS: number;
  /** CPU seconds of PostgreSQL's process tree (postmaster, backends, background workers, reaped children). */
  postgresCpuS: number;
  /** CPU seconds of redis-server (INFO cpu: used_cpu_user + used_cpu_sys). */
  redisCpuS: number;
  /** pg_current_wal_lsn() as a byte position. */
  walBytes: number;
  /** pg_stat_database: committed transactions and tuples inserted, updated, deleted. */
  xactCommit: number;
  tupInserted: number;
  tupUpdated: number;
  tupDeleted: number;
  /** Redis INFO commandstats calls per command (the benchmark's own INFO calls excluded by the caller). */
  redisCalls: Record<string, number>;
  /** pg_total_relation_size (table + indexes + TOAST) per user table, bytes. */
  tableBytes: Record<string, number>;
}

/** What one unit (a scan, a delivery) cost, from a pair of snapshots. */
export interface UnitCost {
  service_cpu_ms: number;
  postgres_cpu_ms: number;
  redis_cpu_ms: number;
  wal_bytes: number;
  transactions: number;
  tuples_inserted: number;
  tuples_updated: number;
  tuples_deleted: number;
  redis_commands: number;
  /** Redis commands per unit by command name (those above 0.001 per unit). */
  redis_commands_by_name: Record<string, number>;
  /** Growth of every user table with its indexes, per unit. */
  storage_bytes: number;
  /** Growth per table (those that grew). */
  storage_bytes_by_table: Record<string, number>;
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;
const r1 = (n: number) => Math.round(n * 10) / 10;

function perKey(before: Record<string, number>, after: Record<string, number>, units: number) {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    total += d;
    if (d / units >= 0.001) out[k] = r3(d / units);
  }
  return { total, out };
}

/** The cost of each of `units` between `before` and `after`. Throws when `units` is not positive. */
export function unitCost(before: StackCounters, after: StackCounters, units: number): UnitCost {
  if (!(units > 0)) throw new Error(`unitCost: units must be > 0 (got ${units})`);
  const per = (a: number, b: number) => (b - a) / units;
  const calls = perKey(before.redisCalls, after.redisCalls, units);
  const tables = perKey(before.tableBytes, after.tableBytes, units);
  return {
    service_cpu_ms: r3(per(before.serviceCpuS, after.serviceCpuS) * 1000),
    postgres_cpu_ms: r3(per(before.postgresCpuS, after.postgresCpuS) * 1000),
    redis_cpu_ms: r3(per(before.redisCpuS, after.redisCpuS) * 1000),
    wal_bytes: Math.round(per(before.walBytes, after.walBytes)),
    transactions: r3(per(before.xactCommit, after.xactCommit)),
    tuples_inserted: r3(per(before.tupInserted, after.tupInserted)),
    tuples_updated: r3(per(before.tupUpdated, after.tupUpdated)),
    tuples_deleted: r3(per(before.tupDeleted, after.tupDeleted)),
    redis_commands: r3(calls.total / units),
    redis_commands_by_name: calls.out,
    storage_bytes: Math.round(tables.total / units),
    storage_bytes_by_table: Object.fromEntries(
      Object.entries(tables.out)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => [k, Math.round(v)]),
    ),
  };
}

/**
 * The extra cost of one webhook delivery: a phase with webhooks subscribed cost `withHooks` per
 * scan, the same load without them `without` per scan, and each scan enqueued `deliveriesPerScan`
 * deliveries (sent and recorded before the phase's second snapshot). Negative differences (noise
 * larger than the effect) are kept as measured: the caller reports them, it does not hide them.
 */
export function perDelivery(withHooks: UnitCost, without: UnitCost, deliveriesPerScan: number): UnitCost {
  if (!(deliveriesPerScan > 0))
    throw new Error(`perDelivery: deliveriesPerScan must be > 0 (got ${deliveriesPerScan})`);
  const d = (k: keyof UnitCost) => ((withHooks[k] as number) - (without[k] as number)) / deliveriesPerScan;
  const byName = (a: Record<string, number>, b: Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const v = ((a[k] ?? 0) - (b[k] ?? 0)) / deliveriesPerScan;
      if (Math.abs(v) >= 0.001) out[k] = r3(v);
    }
    return out;
  };
  return {
    service_cpu_ms: r3(d('service_cpu_ms')),
    postgres_cpu_ms: r3(d('postgres_cpu_ms')),
    redis_cpu_ms: r3(d('redis_cpu_ms')),
    wal_bytes: Math.round(d('wal_bytes')),
    transactions: r3(d('transactions')),
    tuples_inserted: r3(d('tuples_inserted')),
    tuples_updated: r3(d('tuples_updated')),
    tuples_deleted: r3(d('tuples_deleted')),
    redis_commands: r3(d('redis_commands')),
    redis_commands_by_name: byName(withHooks.redis_commands_by_name, without.redis_commands_by_name),
    storage_bytes: Math.round(d('storage_bytes')),
    storage_bytes_by_table: byName(withHooks.storage_bytes_by_table, without.storage_bytes_by_table),
  };
}

/**
 * The delivery cost the model plans with: the database's share (PostgreSQL CPU, WAL, tuples,
 * storage: enqueue in the scan's transaction, then send and record) from the difference of the loads
 * with and without webhooks; the sending side (service and Redis CPU, Redis commands) from the pump
 * draining a backlog alone, when measured, since the scan path's CPU varies more between two loads
 * than a delivery costs. Without a backlog measurement, the difference as it is.
 */
export function deliveryCost(difference: UnitCost, backlog: UnitCost | null): UnitCost {
  if (!backlog) return difference;
  return {
    ...difference,
    service_cpu_ms: backlog.service_cpu_ms,
    redis_cpu_ms: backlog.redis_cpu_ms,
    redis_commands: backlog.redis_commands,
    redis_commands_by_name: backlog.redis_commands_by_name,
  };
}

/** One rollup run measured: the scans its recomputed buckets hold and what the run cost. */
export interface RollupRun {
  label: string;
  /** Scans in the buckets the run recomputed (each bucket is recomputed whole). */
  scans_read: number;
  buckets: number;
  wall_s: number;
  postgres_cpu_s: number;
  wal_bytes: number;
}

/** Scans rolled up per second: of wall time (the job is one statement at a time) and of PostgreSQL CPU. */
export function rollupRate(run: RollupRun): { scans_per_wall_s: number; scans_per_db_cpu_s: number } {
  return {
    scans_per_wall_s: run.wall_s > 0 ? Math.round(run.scans_read / run.wall_s) : 0,
    scans_per_db_cpu_s: run.postgres_cpu_s > 0 ? Math.round(run.scans_read / run.postgres_cpu_s) : 0,
  };
}

/** The assumptions of the capacity model: docs/scaling.md states each one. */
export interface Assumptions {
  /** Cores of one service node. */
  node_cores: number;
  /** Share of a node's cores the plan may use (headroom for bursts, GC, a lost node). */
  node_utilization: number;
  /** Share of the database primary's cores the plan may use. */
  db_utilization: number;
  /** The largest primary one can buy and run (cores): past it, one primary is not enough. */
  db_max_cores: number;
  /** WAL one primary can write and ship to its replicas, bytes/s. */
  wal_max_bytes_per_s: number;
  /** Share of one Redis core a shard may use (Redis runs commands on one thread). */
  redis_utilization: number;
  /** The rollup job's period (s) and bucket (s): jobs/rollup-analytics.ts, store/analytics-rollup.ts. */
  rollup_interval_s: number;
  rollup_bucket_s: number;
  /** Webhook deliveries per scan (subscriptions × the share of scans whose event they subscribe to). */
  deliveries_per_scan: number;
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  node_cores: 16,
  node_utilization: 0.6,
  db_utilization: 0.6,
  db_max_cores: 64,
  wal_max_bytes_per_s: 200 * 2 ** 20,
  redis_utilization: 0.5,
  rollup_interval_s: 30,
  rollup_bucket_s: 900,
  deliveries_per_scan: 0.1,
};

/** Measured inputs of one tier's plan. */
export interface Inputs {
  scan: UnitCost;
  delivery: UnitCost;
  /** Scans the rollup re-reads per second of PostgreSQL CPU (rollupRate().scans_per_db_cpu_s). */
  rollup_scans_per_db_cpu_s: number;
  /**
   * …and per second of one run's duration: the job runs one statement at a time, on one backend,
   * so on a primary with a core to spare this is the rate per PostgreSQL CPU second (the recomputed
   * bucket is recent, so cached); the wall-clock rate on a shared machine includes waiting for a core.
   */
  rollup_scans_per_run_s: number;
}

export interface Plan {
  scans_per_s: number;
  /** Service cores at 100 % and the nodes they need at the planned utilization. */
  service_cores: number;
  nodes: number;
  /** Primary cores (at 100 %) by cause, and the cores to provision at the planned utilization. */
  db_cores_scans: number;
  db_cores_webhooks: number;
  db_cores_rollup: number;
  db_cores_provisioned: number;
  wal_mib_per_s: number;
  storage_gib_per_day: number;
  redis_commands_per_s: number;
  redis_cores: number;
  redis_shards: number;
  webhook_deliveries_per_s: number;
  /**
   * Rows the rollup re-reads per second of wall time on average: each run recomputes the buckets
   * holding new scans whole, and a bucket is on average half full (bucket_s / 2 of scans) when a
   * run reads it, so it reads rate × bucket_s / 2 scans per run, interval_s apart.
   */
  rollup_rows_per_s: number;
  /** One run's duration just before a bucket closes (it re-reads rate × bucket_s scans): analytics freshness. */
  rollup_run_s_at_bucket_end: number;
}

/**
 * What `rate` scans/s need. Cores scale linearly with the measured per-scan CPU (the service is
 * stateless; the database's cost per scan is taken as constant, which is the extrapolation).
 */
export function plan(rate: number, inputs: Inputs, a: Assumptions = DEFAULT_ASSUMPTIONS): Plan {
  const { scan, delivery } = inputs;
  const serviceCores =
    (rate * (scan.service_cpu_ms + a.deliveries_per_scan * Math.max(delivery.service_cpu_ms, 0))) / 1000;
  const dbScans = (rate * scan.postgres_cpu_ms) / 1000;
  const dbHooks = (rate * a.deliveries_per_scan * Math.max(delivery.postgres_cpu_ms, 0)) / 1000;
  const rollupRows = (rate * a.rollup_bucket_s) / 2 / a.rollup_interval_s;
  const dbRollup = inputs.rollup_scans_per_db_cpu_s > 0 ? rollupRows / inputs.rollup_scans_per_db_cpu_s : 0;
  const redisCores = (rate * scan.redis_cpu_ms) / 1000;
  const wal = rate * (scan.wal_bytes + a.deliveries_per_scan * Math.max(delivery.wal_bytes, 0));
  const storage = rate * (scan.storage_bytes + a.deliveries_per_scan * Math.max(delivery.storage_bytes, 0));
  return {
    scans_per_s: rate,
    service_cores: r1(serviceCores),
    nodes: Math.max(2, Math.ceil(serviceCores / (a.node_cores * a.node_utilization))),
    db_cores_scans: r1(dbScans),
    db_cores_webhooks: r1(dbHooks),
    db_cores_rollup: r1(dbRollup),
    db_cores_provisioned: Math.ceil((dbScans + dbHooks + dbRollup) / a.db_utilization),
    wal_mib_per_s: r1(wal / 2 ** 20),
    storage_gib_per_day: r1((storage * 86_400) / 2 ** 30),
    redis_commands_per_s: Math.round(rate * scan.redis_commands),
    redis_cores: r3(redisCores),
    redis_shards: Math.max(1, Math.ceil(redisCores / a.redis_utilization)),
    webhook_deliveries_per_s: Math.round(rate * a.deliveries_per_scan),
    rollup_rows_per_s: Math.round(rollupRows),
    rollup_run_s_at_bucket_end:
      inputs.rollup_scans_per_run_s > 0 ? r1((rate * a.rollup_bucket_s) / inputs.rollup_scans_per_run_s) : 0,
  };
}

/** The rate (scans/s) at which each shared part reaches its limit; the smallest is the first bottleneck. */
export interface Limits {
  /** One primary's usable cores, spent on scan inserts alone. */
  db_scan_inserts: number;
  /** …on scan inserts, webhook fan-out and the rollup together. */
  db_all: number;
  /** One primary's WAL rate. */
  wal: number;
  /** The rollup job (one statement at a time): a run over a full bucket takes the whole interval. */
  rollup_freshness: number;
  /** One Redis shard (one core at the planned utilization). */
  redis_shard: number;
  first: keyof Omit<Limits, 'first'>;
}

export function limits(inputs: Inputs, a: Assumptions = DEFAULT_ASSUMPTIONS): Limits {
  const cap = a.db_max_cores * a.db_utilization;
  const perScanDb =
    inputs.scan.postgres_cpu_ms / 1000 +
    (a.deliveries_per_scan * Math.max(inputs.delivery.postgres_cpu_ms, 0)) / 1000 +
    (inputs.rollup_scans_per_db_cpu_s > 0
      ? a.rollup_bucket_s / 2 / a.rollup_interval_s / inputs.rollup_scans_per_db_cpu_s
      : 0);
  const wal = inputs.scan.wal_bytes + a.deliveries_per_scan * Math.max(inputs.delivery.wal_bytes, 0);
  const inf = Number.POSITIVE_INFINITY;
  const out = {
    db_scan_inserts: inputs.scan.postgres_cpu_ms > 0 ? Math.round(cap / (inputs.scan.postgres_cpu_ms / 1000)) : inf,
    db_all: perScanDb > 0 ? Math.round(cap / perScanDb) : inf,
    wal: wal > 0 ? Math.round(a.wal_max_bytes_per_s / wal) : inf,
    rollup_freshness:
      inputs.rollup_scans_per_run_s > 0
        ? Math.round((inputs.rollup_scans_per_run_s * a.rollup_interval_s) / a.rollup_bucket_s)
        : inf,
    redis_shard:
      inputs.scan.redis_cpu_ms > 0 ? Math.round(a.redis_utilization / (inputs.scan.redis_cpu_ms / 1000)) : inf,
  };
  const first = (Object.keys(out) as (keyof typeof out)[])
    .filter((k) => k !== 'db_scan_inserts') // db_all includes it and is never larger
    .reduce((m, k) => (out[k] < out[m] ? k : m), 'db_all' as keyof typeof out);
  return { ...out, first };
}

/**
 * PostgreSQL CPU per scan split into a part per row and a part per commit, by a least-squares line
 * through (transactions per scan, PostgreSQL CPU ms per scan) of several loads: the group-commit
 * writer puts more scans in a transaction the faster a process receives them, so the tiers (each
 * at its own rate) measure the same write path at different batch sizes. Null with fewer than two
 * distinct batch sizes.
 */
export function commitFit(
  points: readonly { transactions: number; postgres_cpu_ms: number }[],
): { per_scan_ms: number; per_commit_ms: number } | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((a, p) => a + p.transactions, 0) / n;
  const my = points.reduce((a, p) => a + p.postgres_cpu_ms, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.transactions - mx) ** 2, 0);
  if (sxx === 0) return null;
  const b = points.reduce((a, p) => a + (p.transactions - mx) * (p.postgres_cpu_ms - my), 0) / sxx;
  return { per_scan_ms: r3(my - b * mx), per_commit_ms: r3(b) };
}

/**
 * Redis CPU per command at the busiest of several loads (the smallest ms per command): Redis spends
 * less per command the more commands each wake-up of its event loop finds, so the slower loads
 * overstate what a busy shard spends. 0 when no load sent Redis a command.
 */
export function busiestRedisCpuPerCommand(costs: readonly UnitCost[]): number {
  const per = costs.filter((c) => c.redis_commands > 0).map((c) => c.redis_cpu_ms / c.redis_commands);
  return per.length ? Math.min(...per) : 0;
}

/** Median and relative spread ((max − min) / median) of repeated measurements. */
export function spread(values: readonly number[]): { median: number; min: number; max: number; spread: number } {
  if (values.length === 0) throw new Error('spread: no values');
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return {
    median: r3(median),
    min: s[0]!,
    max: s.at(-1)!,
    spread: median !== 0 ? r3((s.at(-1)! - s[0]!) / Math.abs(median)) : 0,
  };
}

/** Redis INFO commandstats as calls per command (`cmdstat_get:calls=12,usec=…` → { get: 12 }). */
export function parseCommandStats(info: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** Redis INFO cpu: the server's own CPU seconds (used_cpu_user + used_cpu_sys; children excluded). */
export function parseRedisCpu(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  const v = field('used_cpu_user') + field('used_cpu_sys');
  if (Number.isNaN(v)) throw new Error('INFO cpu: no used_cpu_user / used_cpu_sys');
  return v;
}

/** A PostgreSQL LSN (`16/B374D848`) as a byte position. */
export function lsnBytes(lsn: string): number {
  const m = /^([0-9A-Fa-f]+)\/([0-9A-Fa-f]+)$/.exec(lsn.trim());
  if (!m) throw new Error(`not an LSN: ${lsn}`);
  return parseInt(m[1]!, 16) * 2 ** 32 + parseInt(m[2]!, 16);
}
