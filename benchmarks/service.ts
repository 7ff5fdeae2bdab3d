/**
 * The service under test as a child process (server/main.ts, optionally `--cluster n`) on a real
 * PostgreSQL: DATABASE_URL when set, else a fresh `cf_bench` database on the local server, or — with
 * `embedded` — no DATABASE_URL and a temporary DATA_DIR, so the service starts its embedded cluster.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchmarkDatabase } from './database.ts';
import { freePort, ROOT, start, stop, waitUntilIdle } from './processes.ts';

const run = promisify(execFile);
export const SECRET = 'benchmark-secret-key-0123456789abcdef';
/** The service's METRICS_TOKEN: the benchmark reads its counters (GET /metrics) with it. */
export const METRICS_TOKEN = 'benchmark-metrics-token-0123456789';

export interface Database {
  /** What the report says: `DATABASE_URL`, `local cf_bench` or `embedded`. */
  kind: string;
  env: Record<string, string | undefined>;
  /** Removes what was created for the run (the temporary DATA_DIR). */
  dispose(): Promise<void>;
}

/**
 * The database every service of this run uses (one, so the key minted once stays valid across restarts).
 * `name`: the local database to recreate (a soak uses its own, so a bench run beside it keeps `cf_bench`).
 */
export async function openDatabase(embedded: boolean, name = 'cf_bench'): Promise<Database> {
  if (!embedded) {
    const kind = process.env.DATABASE_URL ? 'DATABASE_URL' : `local ${name}`;
    return { kind, env: { DATABASE_URL: await benchmarkDatabase(name) }, dispose: async () => undefined };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'cf-bench-'));
  // The embedded cluster runs as the postgres system user when we are root: it must traverse DATA_DIR.
  await chmod(dir, 0o711);
  return {
    kind: 'embedded',
    env: { DATABASE_URL: undefined, DATA_DIR: dir },
    dispose: async () => {
      // The cluster lives outside DATA_DIR when the postgres user cannot reach it; remove it as well.
      const state = await readFile(path.join(dir, 'embedded-postgres.json'), 'utf8').then(
        (t) => JSON.parse(t) as { clusterDir?: string },
        () => null,
      );
      if (state?.clusterDir && !state.clusterDir.startsWith(dir))
        await rm(state.clusterDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Service {
  port: number;
  /** Processes sharing the port (`--cluster n`), or null for the plain single process. */
  cluster: number | null;
  child: ChildProcess;
  /** Milliseconds from spawn to answering /healthz, and then to idle (every process's models warm). */
  startup: { healthy_ms: number; idle_ms: number };
  stop(): Promise<void>;
}

/**
 * The settings every process of the service under test runs with (the service, the durable echo), on
 * `db` and `port`. LOG_LEVEL=warn: per-request access logs are an operator's choice, not part of the
 * scan path's cost.
 */
function serviceEnv(db: Database, port: number): Record<string, string | undefined> {
  return {
    ...db.env,
    SECRET_KEY: SECRET,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REQUESTS: '100000000',
    METRICS_ENABLED: 'true',
    METRICS_TOKEN,
    CLUSTER_WORKERS: undefined,
  };
}

/**
 * Starts the service; resolves once it answers /healthz and its whole process tree has gone idle.
 * `profileDir`: run the service with --cpu-prof, writing its profiles there when it stops. `env`: more
 * settings (e.g. `RESULT_CACHE_BYTES: '0'` for a load that repeats a few texts).
 */
export async function startService(
  db: Database,
  cluster: number | null,
  profileDir?: string,
  extraEnv: Record<string, string> = {},
): Promise<Service> {
  const port = await freePort();
  const began = Date.now();
  const env = { ...serviceEnv(db, port), ...extraEnv };
  const { child } = await start(
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []),
      'server/main.ts',
      ...(cluster === null ? [] : ['--cluster', String(cluster)]),
    ],
    env,
    null,
    port,
  );
  const healthy = Date.now() - began;
  const idle = await waitUntilIdle(child.pid!);
  return { port, cluster, child, startup: { healthy_ms: healthy, idle_ms: idle }, stop: () => stop(child) };
}

/**
 * Starts the durable echo (durable-echo.ts) on the service's database and settings. Start it after the
 * service: with an embedded cluster, the service's; it must stop before the service stops that cluster.
 */
export function startDurableEcho(db: Database): Promise<{ child: ChildProcess; port: number }> {
  return start(['benchmarks/durable-echo-server.ts'], serviceEnv(db, 0), /listening (\d+)/);
}

/** Creates an organization and an admin key through the operator CLI (which finds the embedded cluster too); returns the secret. */
export async function bootstrapKey(db: Database): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...db.env, SECRET_KEY: SECRET, LOG_LEVEL: 'warn' };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'cli/main.ts', 'bootstrap', '--org', `Bench ${Date.now()}`, '--json'],
    { cwd: ROOT, env },
  );
  return (JSON.parse(stdout) as { api_key: { secret: string } }).api_key.secret;
}
