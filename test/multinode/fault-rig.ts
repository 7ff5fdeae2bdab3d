/**
 * What the fault suite (faults.test.ts) needs from a multi-node deployment, and a loopback stand-in
 * for it: N service nodes (the compiled build, `dist/app/server.mjs`) behind Debian's HAProxy with the
 * configuration deploy/haproxy.ts renders from deploy/topology.ts, PgBouncer (deploy/pgbouncer.ts) in
 * front of the test run's PostgreSQL, and a Redis of its own. Everything listens on 127.0.0.1 ports
 * of its own; nothing is shared with other tests but the PostgreSQL server (a database of its own).
 *
 * The network-namespace bed (test/multinode/bed.ts) gives the same parts one address per node; the
 * suite only uses the `FaultTarget` interface, so it runs on either.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ROOT } from '../../benchmarks/processes.ts';
import { renderHaproxyConfig } from '../../deploy/haproxy.ts';
import { renderPgbouncerIni, renderPgbouncerUserlist } from '../../deploy/pgbouncer.ts';
import { TOPOLOGY, type Topology } from '../../deploy/topology.ts';
import { RedisServer } from '../support/redis-server.ts';

/** What HAProxy says of one node (`show stat`): `UP`, `DOWN`, `NOLB` (draining), `MAINT`, or with a transition (`UP 1/2`). */
export type NodeState = string;

/** A multi-node deployment the fault suite can break and mend. */
export interface FaultTarget {
  /** The balancer's URL: every client request goes here. */
  readonly baseUrl: string;
  /** PostgreSQL itself (not through PgBouncer), for the suite's checks. */
  readonly databaseUrl: string;
  readonly nodes: number;
  /** The balancer's health-check interval × fall, in ms: how long it may take to notice a node is gone. */
  readonly detectionBoundMs: number;
  /** Node `i` (0-based) as HAProxy sees it now. */
  nodeStates(): Promise<NodeState[]>;
  /** Sends `signal` to node `i` and waits for its exit. */
  stopNode(i: number, signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts node `i` again; resolves once it answers /readyz (the balancer notices by itself). */
  startNode(i: number): Promise<void>;
  /** Stops PgBouncer (SIGKILL: every client and server connection drops) and starts it again after `downMs`. */
  restartPgBouncer(downMs: number): Promise<void>;
  /** Stops Redis (SIGKILL) and starts it again, empty, after `downMs`. */
  restartRedis(downMs: number): Promise<void>;
  close(): Promise<void>;
}

export function rigInstalled(): string | null {
  for (const bin of ['haproxy', 'pgbouncer', 'redis-server'])
    if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).error) return `${bin} is not installed`;
  return null;
}

/** Waits until `check` resolves true, polling every `everyMs`. @throws after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One command on HAProxy's admin socket; resolves with its whole answer. */
function haproxyCommand(socketPath: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let out = '';
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (d) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

export interface LoopbackRigOptions {
  nodes: number;
  /** The database the nodes use (a database of the test's own on 127.0.0.1:5432, user postgres, trust). */
  databaseUrl: string;
  /** The master secret every node shares. */
  secretKey: string;
  /** More environment for every node. */
  env?: Record<string, string>;
}

/** The loopback stand-in for the bed: see the file's comment. */
export class LoopbackRig implements FaultTarget {
  private readonly children: (ChildProcess | null)[] = [];
  private haproxy: ChildProcess | null = null;
  private pgbouncer: ChildProcess | null = null;
  readonly logs: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly topology: Topology,
    private readonly nodePorts: number[],
    private readonly redis: RedisServer,
    private readonly opts: LoopbackRigOptions,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.topology.balancer.port}`;
  }
  get databaseUrl(): string {
    return this.opts.databaseUrl;
  }
  get nodes(): number {
    return this.nodePorts.length;
  }
  get detectionBoundMs(): number {
    return this.topology.balancer.checkIntervalMs * this.topology.balancer.fall;
  }

  static async start(opts: LoopbackRigOptions): Promise<LoopbackRig> {
    const dir = mkdtempSync(path.join(tmpdir(), 'cf-faults-'));
    chmodSync(dir, 0o755);
    const db = new URL(opts.databaseUrl);
    const topology: Topology = {
      ...TOPOLOGY,
      balancer: { ...TOPOLOGY.balancer, port: await freePort() },
      pgbouncer: { ...TOPOLOGY.pgbouncer, port: await freePort() },
      postgres: { port: Number(db.port || 5432), database: db.pathname.slice(1), user: db.username || 'postgres' },
      redis: { port: 0 },
    };
    const nodePorts: number[] = [];
    for (let i = 0; i < opts.nodes; i++) nodePorts.push(await freePort());
    const redis = await RedisServer.create();
    const rig = new LoopbackRig(dir, topology, nodePorts, redis, opts);
    try {
      await rig.startPgBouncer();
      for (let i = 0; i < opts.nodes; i++) await rig.startNode(i);
      await rig.startHaproxy();
      await until('every node UP at the balancer', async () => (await rig.nodeStates()).every((s) => s === 'UP'));
    } catch (err) {
      await rig.close();
      throw err;
    }
    return rig;
  }

  /** The URL the nodes reach PostgreSQL at: through PgBouncer. */
  private get pooledUrl(): string {
    const url = new URL(this.opts.databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.topology.pgbouncer.port);
    return url.toString();
  }

  async nodeStates(): Promise<NodeState[]> {
    const csv = await haproxyCommand(path.join(this.dir, 'haproxy.sock'), 'show stat');
    const rows = csv.split('\n').map((l) => l.split(','));
    const header = rows[0]!.map((h) => h.replace(/^# /, ''));
    const [px, sv, status] = ['pxname', 'svname', 'status'].map((h) => header.indexOf(h));
    return this.nodePorts.map(
      (_, i) => rows.find((r) => r[px!] === 'nodes' && r[sv!] === `node${i + 1}`)?.[status!] ?? '?',
    );
  }

  async stopNode(i: number, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const child = this.children[i];
    this.children[i] = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  async startNode(i: number): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.topology.service.env,
      HOST: '127.0.0.1',
      PORT: String(this.nodePorts[i]),
      DATABASE_URL: this.pooledUrl,
      REDIS_URL: this.redis.url,
      REDIS_KEY_PREFIX: 'cf:',
      SECRET_KEY: this.opts.secretKey,
      LOG_LEVEL: 'warn',
      // The balancer notices a node that is not ready within checkIntervalMs × fall: serve on a little longer.
      SHUTDOWN_READINESS_DELAY_MS: String(this.detectionBoundMs + 500),
      ...this.opts.env,
    };
    for (const k of ['DATA_DIR', 'CLUSTER_WORKERS']) delete env[k];
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/app/server.mjs'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => {
      this.logs.push(`node${i + 1}: ${d.toString().trimEnd()}`);
      if (this.logs.length > 2_000) this.logs.splice(0, 1_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children[i] = child;
    await until(
      `node${i + 1} ready`,
      async () => {
        if (child.exitCode !== null)
          throw new Error(`node${i + 1} exited ${child.exitCode}: ${this.logs.slice(-5).join('\n')}`);
        return (await fetch(`http://127.0.0.1:${this.nodePorts[i]}/readyz`)).status === 200;
      },
      60_000,
    );
  }

  async restartPgBouncer(downMs: number): Promise<void> {
    await this.stopChild(this.pgbouncer, 'SIGKILL');
    this.pgbouncer = null;
    await new Promise((r) => setTimeout(r, downMs));
    await this.startPgBouncer();
  }

  async restartRedis(downMs: number): Promise<void> {
    await this.redis.kill();
    await new Promise((r) => setTimeout(r, downMs));
    await this.redis.start();
  }

  async close(): Promise<void> {
    for (let i = 0; i < this.children.length; i++) await this.stopNode(i, 'SIGKILL');
    await this.stopChild(this.haproxy, 'SIGKILL');
    await this.stopChild(this.pgbouncer, 'SIGKILL');
    await this.redis.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async stopChild(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  private async startHaproxy(): Promise<void> {
    const cfg = path.join(this.dir, 'haproxy.cfg');
    writeFileSync(
      cfg,
      renderHaproxyConfig(this.topology, {
        servers: this.nodePorts.map((port, i) => ({ name: `node${i + 1}`, host: '127.0.0.1', port })),
        bindAddress: '127.0.0.1',
        adminSocket: path.join(this.dir, 'haproxy.sock'),
      }),
    );
    // -n: the rendered maxconn needs more descriptors than this machine's hard limit allows; the load here is small.
    this.haproxy = spawn('haproxy', ['-db', '-n', '4000', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.haproxy.stderr!.on('data', (d: Buffer) => this.logs.push(`haproxy: ${d.toString().trimEnd()}`));
    await until('haproxy admin socket', async () => (await this.nodeStates()).length > 0, 10_000);
  }

  private async startPgBouncer(): Promise<void> {
    const ini = path.join(this.dir, 'pgbouncer.ini');
    const users = path.join(this.dir, 'userlist.txt');
    writeFileSync(users, renderPgbouncerUserlist([{ user: this.topology.postgres.user, secret: '' }]), { mode: 0o644 });
    writeFileSync(
      ini,
      renderPgbouncerIni(this.topology, {
        postgresHost: '127.0.0.1',
        listenAddr: '127.0.0.1',
        authType: 'trust',
        authFile: users,
      }),
      { mode: 0o644 },
    );
    // PgBouncer refuses to run as root: as the postgres user when we are root.
    const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    const child = spawn('pgbouncer', [...asUser, ini], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => this.logs.push(`pgbouncer: ${d.toString().trimEnd()}`));
    this.pgbouncer = child;
    const port = this.topology.pgbouncer.port;
    await until(
      'pgbouncer listening',
      () =>
        new Promise<boolean>((resolve) => {
          if (child.exitCode !== null)
            throw new Error(`pgbouncer exited ${child.exitCode}: ${this.logs.slice(-5).join('\n')}`);
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => (s.destroy(), resolve(true)));
          s.once('error', () => resolve(false));
        }),
      10_000,
    );
  }
}
