/**
 * Builds the multi-node test bed for one `npm run test:multinode` run and tears it down afterwards
 * (docs/multinode.md): network namespaces joined by a bridge in a namespace of its own, a private
 * PostgreSQL (Debian's binaries, run as the `postgres` user), PgBouncer in transaction pooling mode,
 * Redis, HAProxy, and TOPOLOGY.service.nodes service nodes (the compiled build). The configurations
 * of HAProxy and PgBouncer are rendered from deploy/topology.ts, as the deployment artifacts are.
 *
 * Runs inside the client namespace the wrapper (test/multinode/run.ts) made: MULTINODE_PREFIX names it.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { configSchema } from '../../config.ts';
import { renderHaproxyConfig } from '../../deploy/haproxy.ts';
import { renderPgbouncerIni, renderPgbouncerUserlist } from '../../deploy/pgbouncer.ts';
import { TOPOLOGY } from '../../deploy/topology.ts';
import { BED_RATE_LIMIT, type BedDescription } from './bed.ts';
import { attach, createBridge, createNamespace, destroyNamespace, SUBNET_PREFIX } from './namespaces.ts';
import { startProcess, stopProcess, waitForPort, waitUntil, type ProcessSpec } from './processes.ts';
import { makeTls } from './tls.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Where the last run's logs are kept after teardown. */
export const LAST_LOGS = '/tmp/cfmn-last-logs';

const ADDRESS = {
  client: `${SUBNET_PREFIX}.2`,
  postgres: `${SUBNET_PREFIX}.10`,
  pgbouncer: `${SUBNET_PREFIX}.11`,
  redis: `${SUBNET_PREFIX}.12`,
  haproxy: `${SUBNET_PREFIX}.13`,
  node: (i: number) => `${SUBNET_PREFIX}.${21 + i}`,
};
const STATS_PORT = 8404;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prefix = process.env.MULTINODE_PREFIX;
  if (!prefix || !/^cfmn\d+$/.test(prefix)) {
    throw new Error(
      'test/multinode runs inside its client namespace: use `npm run test:multinode` (test/multinode/run.ts)',
    );
  }
  const started = Date.now();
  const runDir = `/tmp/${prefix}`;
  const namespaces: string[] = [];
  const graceful: ProcessSpec[] = [];
  const teardown = async () => {
    // PostgreSQL shuts down (fast) rather than being killed, so it leaves no shared memory behind.
    for (const spec of graceful) await stopProcess(spec, undefined, 10_000).catch(() => undefined);
    // Every process in every namespace of ours, whoever started it, then the namespaces.
    for (const ns of namespaces.reverse()) destroyNamespace(ns);
    rmSync(LAST_LOGS, { recursive: true, force: true });
    if (existsSync(path.join(runDir, 'logs'))) cpSync(path.join(runDir, 'logs'), LAST_LOGS, { recursive: true });
    rmSync(runDir, { recursive: true, force: true });
  };
  try {
    execFileSync('npm', ['run', '-s', 'build:app'], { cwd: ROOT, stdio: 'inherit' });
    const description = await build(prefix, runDir, namespaces, graceful);
    project.provide('bed', description);
    console.log(
      `multinode bed ${prefix}: ${description.nodes.length} nodes, database via ${description.databasePath}, ready in ${Date.now() - started} ms (logs: ${runDir}/logs, kept in ${LAST_LOGS})`,
    );
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}

/** Which way the nodes reach PostgreSQL: PgBouncer once config.ts has DATABASE_POOLER, unless overridden. */
function databasePath(): 'pgbouncer' | 'direct' {
  const wanted = process.env.MULTINODE_DATABASE_PATH;
  if (wanted === 'pgbouncer' || wanted === 'direct') return wanted;
  if (wanted) throw new Error(`MULTINODE_DATABASE_PATH must be pgbouncer or direct, not ${wanted}`);
  return 'DATABASE_POOLER' in configSchema.shape ? 'pgbouncer' : 'direct';
}

async function build(
  prefix: string,
  runDir: string,
  namespaces: string[],
  graceful: ProcessSpec[],
): Promise<BedDescription> {
  const nodeCount = Number(process.env.MULTINODE_NODES ?? TOPOLOGY.service.nodes);
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > 9) throw new Error('MULTINODE_NODES: 1 to 9');
  const via = databasePath();
  const dirs = { logs: path.join(runDir, 'logs'), pg: path.join(runDir, 'postgres'), tls: path.join(runDir, 'tls') };
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true, mode: 0o711 });
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const postgresUser = { uid: uidOf('postgres'), gid: gidOf('postgres') };
  chownSync(dirs.pg, postgresUser.uid, postgresUser.gid);
  chownSync(dirs.logs, postgresUser.uid, postgresUser.gid);

  // The network: a bridge in its own namespace; the client namespace (this process) joins it too.
  const bridge = `${prefix}-br`;
  const ns = (role: string) => `${prefix}-${role}`;
  createBridge(bridge);
  namespaces.push(bridge); // the client namespace is the wrapper's (this process runs in it)
  attach(bridge, ns('client'), 'v-client', ADDRESS.client);
  const roles = ['pg', 'pgb', 'redis', 'lb', ...Array.from({ length: nodeCount }, (_, i) => `n${i + 1}`)];
  const addressOf: Record<string, string> = {
    pg: ADDRESS.postgres,
    pgb: ADDRESS.pgbouncer,
    redis: ADDRESS.redis,
    lb: ADDRESS.haproxy,
  };
  for (const role of roles) {
    createNamespace(ns(role));
    namespaces.push(ns(role));
    attach(bridge, ns(role), `v-${role}`, addressOf[role] ?? ADDRESS.node(Number(role.slice(1)) - 1));
  }

  const tls = makeTls(dirs.tls, ADDRESS.client);
  const password = randomBytes(18).toString('base64url');
  const { database, user } = TOPOLOGY.postgres;
  const basePath = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
  const asPostgres = ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'];
  const spec = (name: string, role: string, port: number, argv: string[], env: Record<string, string> = {}) =>
    ({
      name,
      ns: ns(role),
      address: addressOf[role] ?? ADDRESS.node(Number(role.slice(1)) - 1),
      port,
      argv,
      env: { PATH: basePath, LANG: 'C.UTF-8', ...env },
      cwd: ROOT,
      log: path.join(dirs.logs, `${name}.log`),
      pidFile: path.join(runDir, `${name}.pid`),
      stopSignal: 'SIGTERM' as NodeJS.Signals,
    }) satisfies ProcessSpec;

  // PostgreSQL: a private cluster (fsync off: the bed's data is thrown away).
  const pgBin = postgresBinaries();
  const pgData = path.join(dirs.pg, 'data');
  run(asPostgres[0]!, [
    ...asPostgres.slice(1),
    path.join(pgBin, 'initdb'),
    '-D',
    pgData,
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  writeFileSync(
    path.join(pgData, 'pg_hba.conf'),
    `local all all trust\nhost all all ${SUBNET_PREFIX}.0/24 scram-sha-256\n`,
  );
  const postgres = spec('postgres', 'pg', TOPOLOGY.postgres.port, [
    ...asPostgres,
    path.join(pgBin, 'postgres'),
    '-D',
    pgData,
    '-c',
    `listen_addresses=${ADDRESS.postgres}`,
    '-c',
    `port=${TOPOLOGY.postgres.port}`,
    '-c',
    `unix_socket_directories=${dirs.pg}`,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ]);
  postgres.stopSignal = 'SIGINT'; // fast shutdown
  startProcess(postgres);
  graceful.push(postgres);
  await waitForPort(postgres);
  const superuser = new pg.Client({
    host: dirs.pg,
    port: TOPOLOGY.postgres.port,
    user: 'postgres',
    database: 'postgres',
  });
  await superuser.connect();
  try {
    await superuser.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
    await superuser.query(`CREATE DATABASE ${database} OWNER ${user}`);
  } finally {
    await superuser.end();
  }
  const directUrl = `postgres://${user}:${password}@${ADDRESS.postgres}:${TOPOLOGY.postgres.port}/${database}`;

  // Redis: no persistence (a restart starts empty, as a cache's would).
  const redis = spec('redis', 'redis', TOPOLOGY.redis.port, [
    'redis-server',
    '--bind',
    ADDRESS.redis,
    '--port',
    String(TOPOLOGY.redis.port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
  ]);
  startProcess(redis);
  await waitForPort(redis);

  // PgBouncer, transaction pooling, from deploy/pgbouncer.ts.
  const pgbDir = path.join(runDir, 'pgbouncer');
  mkdirSync(pgbDir);
  const authFile = path.join(pgbDir, 'userlist.txt');
  writeFileSync(authFile, renderPgbouncerUserlist([{ user, secret: password }]), { mode: 0o600 });
  const ini = path.join(pgbDir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    renderPgbouncerIni(TOPOLOGY, {
      postgresHost: ADDRESS.postgres,
      listenAddr: ADDRESS.pgbouncer,
      authType: 'scram-sha-256',
      authFile,
    }),
  );
  for (const file of [pgbDir, authFile, ini]) chownSync(file, postgresUser.uid, postgresUser.gid);
  const pgbouncer = spec('pgbouncer', 'pgb', TOPOLOGY.pgbouncer.port, [...asPostgres, '/usr/sbin/pgbouncer', ini]);
  pgbouncer.stopSignal = 'SIGINT'; // safe shutdown: waits for transactions in flight
  startProcess(pgbouncer);
  await waitForPort(pgbouncer);
  const pooledUrl = `postgres://${user}:${password}@${ADDRESS.pgbouncer}:${TOPOLOGY.pgbouncer.port}/${database}`;

  // The organization, migrations included (the CLI migrates first), directly on PostgreSQL.
  const secretKey = randomBytes(32).toString('base64url');
  const cliEnv = { PATH: basePath, DATABASE_URL: directUrl, SECRET_KEY: secretKey, DATA_DIR: path.join(runDir, 'cli') };
  const boot = JSON.parse(
    execFileSync(process.execPath, ['dist/app/cli.mjs', 'bootstrap', '--org', 'bed', '--json'], {
      cwd: ROOT,
      env: cliEnv,
      encoding: 'utf8',
    }),
  ) as { org_id: string; api_key: { secret: string } };

  // The service nodes: the compiled build, TOPOLOGY.service.env plus the bed's connections and secrets.
  const metricsToken = randomBytes(24).toString('base64url');
  const nodes = Array.from({ length: nodeCount }, (_, i) => {
    const dataDir = path.join(runDir, `node${i + 1}`);
    mkdirSync(dataDir);
    const env: Record<string, string> = {
      ...TOPOLOGY.service.env,
      DATABASE_URL: via === 'pgbouncer' ? pooledUrl : directUrl,
      REDIS_URL: `redis://${ADDRESS.redis}:${TOPOLOGY.redis.port}`,
      SECRET_KEY: secretKey,
      DATA_DIR: dataDir,
      HOME: dataDir,
      WORKER_THREADS: '1',
      METRICS_TOKEN: metricsToken,
      WEBHOOK_ALLOW_PRIVATE: ADDRESS.client,
      WEBHOOK_CA_FILE: tls.caFile,
      RATE_LIMIT_REQUESTS: String(BED_RATE_LIMIT.requests),
      RATE_LIMIT_WINDOW_SECONDS: String(BED_RATE_LIMIT.windowSeconds),
    };
    if (via === 'direct') {
      if ('DATABASE_POOLER' in configSchema.shape) env.DATABASE_POOLER = 'none';
      else delete env.DATABASE_POOLER;
    }
    return spec(`node${i + 1}`, `n${i + 1}`, TOPOLOGY.service.port, [process.execPath, 'dist/app/server.mjs'], env);
  });
  for (const node of nodes) startProcess(node);
  for (const node of nodes) {
    const url = `http://${node.address}:${node.port}/readyz`;
    await waitUntil(node, async () => (await fetch(url)).status === 200, 90_000, '/readyz');
  }

  // HAProxy over the nodes, from deploy/haproxy.ts.
  const cfg = path.join(runDir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    renderHaproxyConfig(TOPOLOGY, {
      servers: nodes.map((n) => ({ name: n.name, host: n.address, port: n.port })),
      bindAddress: ADDRESS.haproxy,
      statsPort: STATS_PORT,
      statsBindAddress: ADDRESS.haproxy,
      adminSocket: path.join(runDir, 'haproxy.sock'),
    }),
  );
  const haproxy = spec('haproxy', 'lb', TOPOLOGY.balancer.port, ['haproxy', '-db', '-f', cfg]);
  startProcess(haproxy);
  await waitForPort(haproxy);
  const statsUrl = `http://${ADDRESS.haproxy}:${STATS_PORT}/stats`;
  await waitUntil(
    haproxy,
    async () => {
      const csv = await (await fetch(`${statsUrl};csv`)).text();
      return nodes.every((n) => new RegExp(`^nodes,${n.name},(?:[^,]*,){15}UP,`, 'm').test(csv));
    },
    30_000,
    'every node UP',
  );

  return {
    prefix,
    runDir,
    databasePath: via,
    clientAddress: ADDRESS.client,
    balancerUrl: `http://${ADDRESS.haproxy}:${TOPOLOGY.balancer.port}`,
    statsUrl,
    databaseUrl: directUrl,
    redisUrl: `redis://${ADDRESS.redis}:${TOPOLOGY.redis.port}`,
    org: { id: boot.org_id, adminKey: boot.api_key.secret },
    cliEnv,
    metricsToken,
    tls,
    postgres,
    pgbouncer,
    redis,
    haproxy,
    nodes,
  };
}

/** Debian's PostgreSQL server binaries: the newest /usr/lib/postgresql/<version>/bin with initdb. */
function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  return path.join(root, versions[0]!, 'bin');
}

/** execFileSync with a short message on failure (the command and its stderr, not the buffers). */
function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`${command} ${args.join(' ')}: ${String((err as { stderr?: Buffer }).stderr ?? err)}`, {
      cause: err,
    });
  }
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}

function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
}
