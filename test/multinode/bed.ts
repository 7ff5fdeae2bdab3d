/**
 * The multi-node test bed's control API, for the test files under test/multinode/ (the global setup,
 * global-setup.ts, builds the bed and hands its description over with vitest's `provide`):
 *
 *   const bed = useBed();                       // in a test file
 *   bed.balancerUrl                             // http://10.77.0.13:8080: HAProxy over every node
 *   bed.nodes[i].url                            // one node directly (bypassing the balancer)
 *   await bed.killNode(1); await bed.startNode(1);   // kill -9, start again (waits for /readyz)
 *   await bed.restartNode(0)                    // SIGTERM (graceful drain), then start
 *   await bed.waitForBalancer('node2', 'DOWN')  // until HAProxy's checks agree
 *   await bed.restart('pgbouncer' | 'redis')    // stop (graceful) and start again on the same address
 *   await bed.serverStats()                     // HAProxy's per-node counters (requests, status)
 *   await bed.query(sql, params)                // PostgreSQL directly (not through PgBouncer)
 *
 * The test process runs inside the bed's client namespace (`npm run test:multinode` starts vitest
 * there), so it reaches every address of the bed, and nothing else of the bed is reachable from the
 * host. All processes are children of nobody in particular: they are found by their pid files, and
 * teardown kills whatever still runs in each namespace, whoever started it.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { logTail, pidOf, startProcess, stopProcess, waitForPort, waitUntil, type ProcessSpec } from './processes.ts';

/** The bed's per-key request budget (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS) on every node. */
export const BED_RATE_LIMIT = { requests: 600, windowSeconds: 10 } as const;

/** Everything a test needs to know about the bed: plain data, from the global setup. */
export interface BedDescription {
  /** `cfmn<pid>`: every namespace's name starts with it. */
  prefix: string;
  runDir: string;
  /** How the nodes reach PostgreSQL: through PgBouncer (transaction pooling) or directly. */
  databasePath: 'pgbouncer' | 'direct';
  /** The test process's own address (the client namespace): a webhook receiver listens here. */
  clientAddress: string;
  balancerUrl: string;
  /** HAProxy's statistics page (`;csv` appended: machine-readable). */
  statsUrl: string;
  /** PostgreSQL directly, as the service's role (the same database the nodes use). */
  databaseUrl: string;
  redisUrl: string;
  /** The organization made by `content-firewall bootstrap`, and its admin key's secret. */
  org: { id: string; adminKey: string };
  /** The environment `content-firewall` operator commands need (direct database URL, the master secret). */
  cliEnv: Record<string, string>;
  /** Bearer token of every node's `/metrics`. */
  metricsToken: string;
  /** The bed's own CA (trusted by the nodes for webhooks: WEBHOOK_CA_FILE) and a leaf for `clientAddress`. */
  tls: { caFile: string; certFile: string; keyFile: string };
  postgres: ProcessSpec;
  pgbouncer: ProcessSpec;
  redis: ProcessSpec;
  haproxy: ProcessSpec;
  nodes: ProcessSpec[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    bed: BedDescription;
  }
}

/** One row of HAProxy's statistics for a server of the `nodes` backend. */
export interface ServerStat {
  name: string;
  /** `UP`, `DOWN`, `MAINT`, `NOLB`, `UP 1/2` (going down), `DOWN 1/2` (coming up), ... */
  status: string;
  /** Requests sent to it (stot: sessions). */
  sessions: number;
  responses2xx: number;
  responses5xx: number;
}

export type BedService = 'postgres' | 'pgbouncer' | 'redis' | 'haproxy';

export class Bed {
  readonly nodes: readonly { name: string; address: string; url: string }[];
  private pool: pg.Pool | null = null;

  constructor(readonly description: BedDescription) {
    this.nodes = description.nodes.map((spec) => ({
      name: spec.name,
      address: spec.address,
      url: `http://${spec.address}:${spec.port}`,
    }));
  }

  get balancerUrl(): string {
    return this.description.balancerUrl;
  }

  get adminKey(): string {
    return this.description.org.adminKey;
  }

  /** Starts node `i` (0-based) and resolves once its `/readyz` answers 200. */
  async startNode(i: number, timeoutMs = 60_000): Promise<void> {
    const spec = this.node(i);
    startProcess(spec);
    await this.waitForNodeReady(i, timeoutMs);
  }

  /** Stops node `i` gracefully (SIGTERM: it drains its requests) and waits until it exited. */
  async stopNode(i: number): Promise<void> {
    await stopProcess(this.node(i));
  }

  /** `kill -9` of node `i`; resolves once it is gone. */
  async killNode(i: number): Promise<void> {
    await stopProcess(this.node(i), 'SIGKILL');
  }

  /** Graceful stop and start of node `i` (a rolling restart's step). */
  async restartNode(i: number): Promise<void> {
    await this.stopNode(i);
    await this.startNode(i);
  }

  /** Whether node `i`'s process runs. */
  nodeRunning(i: number): boolean {
    return pidOf(this.node(i)) !== null;
  }

  async waitForNodeReady(i: number, timeoutMs = 60_000): Promise<void> {
    const { url } = this.nodes[i]!;
    await waitUntil(this.node(i), async () => (await fetch(`${url}/readyz`)).status === 200, timeoutMs, '/readyz');
  }

  /** Stops a part of the bed gracefully (waits until it exited). */
  async stop(service: BedService, signal?: NodeJS.Signals): Promise<void> {
    await stopProcess(this.description[service], signal);
  }

  /** Starts a part of the bed again on its address and resolves once it takes connections. */
  async start(service: BedService): Promise<void> {
    const spec = this.description[service];
    startProcess(spec);
    await waitForPort(spec);
  }

  /** `stop` then `start` (PgBouncer, Redis: their clients must reconnect by themselves). */
  async restart(service: BedService, signal?: NodeJS.Signals): Promise<void> {
    await this.stop(service, signal);
    await this.start(service);
  }

  /** HAProxy's view of every node, by server name (`node1`, ...). */
  async serverStats(): Promise<Map<string, ServerStat>> {
    const text = await (await fetch(`${this.description.statsUrl};csv`)).text();
    const [header, ...rows] = text.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    const col = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    const stats = new Map<string, ServerStat>();
    for (const line of rows) {
      const row = line.split(',');
      if (col(row, 'pxname') !== 'nodes' || ['FRONTEND', 'BACKEND'].includes(col(row, 'svname'))) continue;
      stats.set(col(row, 'svname'), {
        name: col(row, 'svname'),
        status: col(row, 'status'),
        sessions: Number(col(row, 'stot')),
        responses2xx: Number(col(row, 'hrsp_2xx')),
        responses5xx: Number(col(row, 'hrsp_5xx')),
      });
    }
    return stats;
  }

  /** Resolves once HAProxy reports `server` in `status` (`UP` or `DOWN`). @throws after `timeoutMs`. */
  async waitForBalancer(server: string, status: 'UP' | 'DOWN', timeoutMs = 30_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const now = (await this.serverStats()).get(server)?.status ?? '';
      if (now === status) return Date.now() - started;
      if (Date.now() - started > timeoutMs) throw new Error(`HAProxy: ${server} is ${now}, not ${status}`);
      await sleep(50);
    }
  }

  /** Node `i`'s Prometheus text (`/metrics` with the bed's token). */
  async nodeMetrics(i: number): Promise<string> {
    const res = await fetch(`${this.nodes[i]!.url}/metrics`, {
      headers: { authorization: `Bearer ${this.description.metricsToken}` },
    });
    if (res.status !== 200) throw new Error(`${this.nodes[i]!.name} /metrics: ${res.status}`);
    return res.text();
  }

  /** The sum of one counter's samples whose labels include `labels`, on node `i`. */
  async nodeCounter(i: number, metric: string, labels: Record<string, string> = {}): Promise<number> {
    let sum = 0;
    for (const line of (await this.nodeMetrics(i)).split('\n')) {
      const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? ([-+.\deE]+|NaN)$/.exec(line);
      if (!match || match[1] !== metric) continue;
      const text = match[2] ?? '';
      if (Object.entries(labels).every(([k, v]) => text.includes(`${k}="${v}"`))) sum += Number(match[3]);
    }
    return sum;
  }

  /**
   * A new organization and its admin key (`content-firewall bootstrap`, as an operator would): a test
   * that counts scans, deliveries or analytics gets one of its own.
   */
  createOrg(name = `org-${randomBytes(4).toString('hex')}`): { id: string; adminKey: string } {
    const out = execFileSync(process.execPath, ['dist/app/cli.mjs', 'bootstrap', '--org', name, '--json'], {
      cwd: this.description.nodes[0]!.cwd,
      env: this.description.cliEnv,
      encoding: 'utf8',
    });
    const boot = JSON.parse(out) as { org_id: string; api_key: { secret: string } };
    return { id: boot.org_id, adminKey: boot.api_key.secret };
  }

  /**
   * Records a measured number (printed, and appended to logs/measurements.jsonl, kept with the run's
   * logs): the figures docs/multinode.md quotes come from here.
   */
  measure(name: string, value: unknown): void {
    const line = JSON.stringify({ name, value, at: new Date().toISOString() });
    console.log(`measured ${line}`);
    appendFileSync(path.join(this.description.runDir, 'logs', 'measurements.jsonl'), `${line}\n`);
  }

  /** One statement on PostgreSQL directly (a pool of the bed's, closed by `close()`). */
  async query<R extends pg.QueryResultRow = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<R[]> {
    this.pool ??= new pg.Pool({ connectionString: this.description.databaseUrl, max: 4 });
    return (await this.pool.query<R>(sql, params)).rows;
  }

  /** The end of a part's log (`node1`, `pgbouncer`, ...), for a failing test's message. */
  logTail(name: string, chars = 3_000): string {
    const spec = [...this.description.nodes, this.description.postgres, this.description.pgbouncer]
      .concat([this.description.redis, this.description.haproxy])
      .find((s) => s.name === name);
    return spec ? logTail(spec, chars) : `(no part named ${name})`;
  }

  /** Closes the bed's database pool (the bed itself is torn down by the global setup). */
  async close(): Promise<void> {
    await this.pool?.end();
    this.pool = null;
  }

  private node(i: number): ProcessSpec {
    const spec = this.description.nodes[i];
    if (!spec) throw new Error(`no node ${i} (the bed has ${this.description.nodes.length})`);
    return spec;
  }
}

/** The bed of this run, for a test file. */
export function useBed(): Bed {
  return new Bed(inject('bed'));
}
