import { describe, expect, it } from 'vitest';
import {
  busiestRedisCpuPerCommand,
  commitFit,
  DEFAULT_ASSUMPTIONS,
  deliveryCost,
  limits,
  lsnBytes,
  parseCommandStats,
  parseRedisCpu,
  perDelivery,
  plan,
  rollupRate,
  spread,
  unitCost,
  type Inputs,
  type StackCounters,
  type UnitCost,
} from '../../benchmarks/scaling-model.ts';

const counters = (o: Partial<StackCounters>): StackCounters => ({
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
  ...o,
});

const cost = (o: Partial<UnitCost>): UnitCost => ({
  service_cpu_ms: 0,
  postgres_cpu_ms: 0,
  redis_cpu_ms: 0,
  wal_bytes: 0,
  transactions: 0,
  tuples_inserted: 0,
  tuples_updated: 0,
  tuples_deleted: 0,
  redis_commands: 0,
  redis_commands_by_name: {},
  storage_bytes: 0,
  storage_bytes_by_table: {},
  ...o,
});

describe('bench:scaling per-unit derivations', () => {
  it('divides every counter difference by the units (CPU in ms, bytes whole)', () => {
    const before = counters({
      serviceCpuS: 10,
      postgresCpuS: 2,
      redisCpuS: 1,
      walBytes: 1_000_000,
      xactCommit: 100,
      tupInserted: 50,
      redisCalls: { get: 10, set: 5 },
      tableBytes: { scans: 8192, audit_events: 8192 },
    });
    const after = counters({
      serviceCpuS: 12,
      postgresCpuS: 2.2,
      redisCpuS: 1.05,
      walBytes: 3_000_000,
      xactCommit: 200,
      tupInserted: 1_550,
      tupUpdated: 10,
      redisCalls: { get: 1_010, set: 1_005, exec: 2_000 },
      tableBytes: { scans: 8192 + 1_500_000, audit_events: 8192, webhooks: 0 },
    });
    const c = unitCost(before, after, 1_000);
    expect(c.service_cpu_ms).toBe(2);
    expect(c.postgres_cpu_ms).toBe(0.2);
    expect(c.redis_cpu_ms).toBe(0.05);
    expect(c.wal_bytes).toBe(2_000);
    expect(c.transactions).toBe(0.1);
    expect(c.tuples_inserted).toBe(1.5);
    expect(c.tuples_updated).toBe(0.01);
    expect(c.redis_commands).toBe(4);
    expect(c.redis_commands_by_name).toEqual({ get: 1, set: 1, exec: 2 });
    expect(c.storage_bytes).toBe(1_500);
    expect(c.storage_bytes_by_table).toEqual({ scans: 1_500 });
  });

  it('refuses zero units rather than dividing by zero', () => {
    expect(() => unitCost(counters({}), counters({}), 0)).toThrow(/units/);
  });

  it('a delivery costs the per-scan difference divided by the deliveries per scan, negatives kept', () => {
    const without = cost({
      service_cpu_ms: 2,
      postgres_cpu_ms: 0.15,
      wal_bytes: 2_000,
      redis_commands_by_name: { get: 1 },
    });
    const withHooks = cost({
      service_cpu_ms: 1.9,
      postgres_cpu_ms: 0.45,
      wal_bytes: 7_000,
      redis_commands_by_name: { get: 1, publish: 0.2 },
    });
    const d = perDelivery(withHooks, without, 2);
    expect(d.postgres_cpu_ms).toBe(0.15);
    expect(d.wal_bytes).toBe(2_500);
    expect(d.service_cpu_ms).toBe(-0.05);
    expect(d.redis_commands_by_name).toEqual({ publish: 0.1 });
    expect(() => perDelivery(withHooks, without, 0)).toThrow(/deliveriesPerScan/);
  });

  it('plans a delivery with the database share of the difference and the sending share of the backlog drain', () => {
    const difference = cost({ service_cpu_ms: -0.1, postgres_cpu_ms: 0.15, wal_bytes: 2_600 });
    const backlog = cost({ service_cpu_ms: 0.4, postgres_cpu_ms: 0.05, wal_bytes: 900, redis_commands: 0.5 });
    const d = deliveryCost(difference, backlog);
    expect(d).toMatchObject({ service_cpu_ms: 0.4, postgres_cpu_ms: 0.15, wal_bytes: 2_600, redis_commands: 0.5 });
    expect(deliveryCost(difference, null)).toBe(difference);
  });

  it('rollup rate: scans re-read per second of wall time and of PostgreSQL CPU', () => {
    const run = { label: 'x', scans_read: 300_000, buckets: 1, wall_s: 1.5, postgres_cpu_s: 1.2, wal_bytes: 0 };
    expect(rollupRate(run)).toEqual({ scans_per_wall_s: 200_000, scans_per_db_cpu_s: 250_000 });
    expect(rollupRate({ ...run, wall_s: 0, postgres_cpu_s: 0 })).toEqual({
      scans_per_wall_s: 0,
      scans_per_db_cpu_s: 0,
    });
  });
});

describe('bench:scaling capacity model', () => {
  const inputs: Inputs = {
    scan: cost({
      service_cpu_ms: 2,
      postgres_cpu_ms: 0.2,
      wal_bytes: 2_000,
      redis_cpu_ms: 0.05,
      redis_commands: 10,
      storage_bytes: 1_800,
    }),
    delivery: cost({ service_cpu_ms: 0.5, postgres_cpu_ms: 0.15, wal_bytes: 2_500, storage_bytes: 1_500 }),
    rollup_scans_per_db_cpu_s: 300_000,
    rollup_scans_per_run_s: 200_000,
  };
  const a = { ...DEFAULT_ASSUMPTIONS, deliveries_per_scan: 0.1 };

  it('scales every part linearly with the rate and shows the arithmetic in its fields', () => {
    const p = plan(10_000, inputs, a);
    // service: 10,000 × (2 + 0.1 × 0.5) ms = 20.5 cores; 16-core nodes at 60 % hold 9.6 → 3 nodes
    expect(p.service_cores).toBe(20.5);
    expect(p.nodes).toBe(3);
    // database: scans 10,000 × 0.2 ms = 2 cores; webhooks 10,000 × 0.1 × 0.15 ms = 0.15;
    // rollup: 10,000 × 900 / 2 / 30 = 150,000 rows/s ÷ 300,000 per core = 0.5 → (2.65) / 0.6 → 5
    expect(p.db_cores_scans).toBe(2);
    expect(p.db_cores_webhooks).toBe(0.2); // 0.15 rounded to one decimal
    expect(p.db_cores_rollup).toBe(0.5);
    expect(p.rollup_rows_per_s).toBe(150_000);
    expect(p.db_cores_provisioned).toBe(5);
    // WAL: 10,000 × (2,000 + 0.1 × 2,500) B = 22.5 MB/s = 21.5 MiB/s
    expect(p.wal_mib_per_s).toBe(21.5);
    // storage: 10,000 × (1,800 + 150) B × 86,400 s = 1,684.8 GB = 1,569.1 GiB a day
    expect(p.storage_gib_per_day).toBe(1569.1);
    // Redis: 0.5 cores of command time; a shard may use half a core → 1 shard
    expect(p.redis_commands_per_s).toBe(100_000);
    expect(p.redis_cores).toBe(0.5);
    expect(p.redis_shards).toBe(1);
    // rollup freshness: a full bucket of 9,000,000 scans at 200,000 per second = 45 s
    expect(p.rollup_run_s_at_bucket_end).toBe(45);
    expect(p.webhook_deliveries_per_s).toBe(1_000);
  });

  it('never plans fewer than two nodes (one lost node must not stop the service)', () => {
    expect(plan(1, inputs, a).nodes).toBe(2);
  });

  it('names the part that reaches its limit at the lowest rate', () => {
    const l = limits(inputs, a);
    // one primary: 64 cores × 0.6 = 38.4 usable
    expect(l.db_scan_inserts).toBe(192_000); // 38.4 / 0.0002
    // per scan on the primary: 0.2 + 0.015 + 15 / 300,000 × 1000 (0.05) ms = 0.265 ms → 144,906
    expect(l.db_all).toBe(144_906);
    expect(l.wal).toBe(Math.round((200 * 2 ** 20) / 2_250));
    expect(l.rollup_freshness).toBe(6_667); // 200,000 × 30 / 900
    expect(l.redis_shard).toBe(10_000); // 0.5 / 0.00005
    expect(l.first).toBe('rollup_freshness');
    const fastRollup = limits({ ...inputs, rollup_scans_per_run_s: 10_000_000 }, a);
    expect(fastRollup.first).toBe('redis_shard');
  });

  it('a part not measured is no limit', () => {
    const l = limits({ ...inputs, rollup_scans_per_db_cpu_s: 0, rollup_scans_per_run_s: 0 }, a);
    expect(l.rollup_freshness).toBe(Number.POSITIVE_INFINITY);
    expect(l.first).not.toBe('rollup_freshness');
  });
});

describe('bench:scaling parsers and spread', () => {
  it('reads Redis INFO commandstats and cpu', () => {
    const stats =
      '# Commandstats\r\ncmdstat_get:calls=12,usec=30,usec_per_call=2.50\r\ncmdstat_exec:calls=3,usec=9\r\n';
    expect(parseCommandStats(stats)).toEqual({ get: 12, exec: 3 });
    expect(parseRedisCpu('# CPU\r\nused_cpu_sys:1.25\r\nused_cpu_user:2.5\r\nused_cpu_sys_children:9\r\n')).toBe(3.75);
    expect(() => parseRedisCpu('# CPU\r\n')).toThrow(/used_cpu/);
  });

  it('splits PostgreSQL CPU per scan into a part per scan and a part per commit', () => {
    // 0.04 ms a scan + 0.75 ms a commit, at 8, 3 and 1.5 scans per transaction
    const points = [0.125, 1 / 3, 2 / 3].map((t) => ({ transactions: t, postgres_cpu_ms: 0.04 + 0.75 * t }));
    expect(commitFit(points)).toEqual({ per_scan_ms: 0.04, per_commit_ms: 0.75 });
    expect(commitFit(points.slice(0, 1))).toBeNull();
    expect(commitFit([points[0]!, points[0]!])).toBeNull();
  });

  it('takes Redis CPU per command from the busiest load', () => {
    const loads = [
      cost({ redis_commands: 10, redis_cpu_ms: 0.06 }),
      cost({ redis_commands: 10, redis_cpu_ms: 0.2 }),
      cost({ redis_commands: 0, redis_cpu_ms: 0.01 }),
    ];
    expect(busiestRedisCpuPerCommand(loads)).toBeCloseTo(0.006, 9);
    expect(busiestRedisCpuPerCommand([])).toBe(0);
  });

  it('reads an LSN as a byte position', () => {
    expect(lsnBytes('0/16B3748')).toBe(0x16b3748);
    expect(lsnBytes('1/0')).toBe(2 ** 32);
    expect(lsnBytes('1/10') - lsnBytes('0/FFFFFFF0')).toBe(0x20);
    expect(() => lsnBytes('nope')).toThrow(/LSN/);
  });

  it('states the median and the relative spread of repeated runs', () => {
    expect(spread([2, 1.8])).toEqual({ median: 1.9, min: 1.8, max: 2, spread: 0.105 });
    expect(spread([3, 1, 2])).toMatchObject({ median: 2, spread: 1 });
    expect(() => spread([])).toThrow();
  });
});
