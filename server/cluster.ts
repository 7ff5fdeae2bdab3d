/**
 * Cluster mode (`npm start -- --cluster N`, or CLUSTER_WORKERS=N): this process becomes the primary
 * of N worker processes that share the listening port (node:cluster, connections spread round-robin),
 * PostgreSQL and Redis. The primary serves no requests. It starts the embedded PostgreSQL when
 * DATABASE_URL is unset (the workers connect to it), applies migrations and creates the master secret
 * once before forking, gives each worker its share of the cores for model threads, replaces a worker
 * that dies, and on SIGTERM/SIGINT asks every worker to drain and waits for them before stopping the
 * embedded cluster.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import { declaredExtraModels } from './extra-models.ts';
import { loadMasterSecret } from './runtime.ts';
import { createPool } from '../store/db.ts';
import { EmbeddedPostgres, type EmbeddedHandle } from '../store/embedded.ts';
import { migrate } from '../store/migrate.ts';
import { forceExit, holdSignals, SHUTDOWN_MESSAGE } from './signals.ts';

/** Workers asked for on the command line (`--cluster N` / `--cluster=N`), else CLUSTER_WORKERS; 0 = one process. */
export function clusterWorkers(argv: readonly string[], config: Readonly<Config>): number {
  const i = argv.findIndex((a) => a === '--cluster' || a.startsWith('--cluster='));
  if (i < 0) return config.CLUSTER_WORKERS;
  const raw = argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new Error(`--cluster takes a number of processes from 1 to 64 (got ${JSON.stringify(raw)})`);
  return n;
}

// A worker that keeps dying is not restarted forever: more than this many exits in the window stops the cluster.
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

export async function runPrimary(
  config: Readonly<Config>,
  workers: number,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  // A signal before the workers exist: the embedded cluster is stopped instead of left running.
  const held = holdSignals(false, logger);
  let embedded: EmbeddedHandle | null = null;
  const stopEmbedded = async () => {
    if (embedded?.owned)
      await embedded
        .stop()
        .catch((err: Error) => logger.error({ err: err.message }, 'stopping embedded PostgreSQL failed'));
  };
  const workerEnv: Record<string, string> = {};
  try {
    // Checked once here too: a wrong declaration or file refuses the start, rather than every worker in turn.
    if (config.EXTRA_MODELS_DIR) declaredExtraModels(config.EXTRA_MODELS_DIR, config.MODELS_DIR);
    if (!config.DATABASE_URL) {
      embedded = await new EmbeddedPostgres(config.DATA_DIR, logger).ensure();
      embedded.supervise();
      workerEnv.DATABASE_URL = embedded.url;
    }
    // Once, here, rather than N times at once in the workers (both are safe; this is quieter).
    await loadMasterSecret(config);
    const db = createPool(workerEnv.DATABASE_URL ?? config.DATABASE_URL!, 1, (err) =>
      logger.warn({ err: err.message }, 'database connection lost (the pool reconnects on demand)'),
    );
    try {
      const applied = await migrate(db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    } finally {
      await db.end();
    }
  } catch (err) {
    await stopEmbedded();
    throw err;
  }
  if (held.requests.pending) {
    logger.info({ reason: held.requests.pending }, 'stop requested while starting: no workers started');
    await stopEmbedded();
    logger.info('cluster stopped');
    process.exit(0);
  }
  // Model threads: the cores shared out, unless WORKER_THREADS says otherwise.
  if (env.WORKER_THREADS === undefined || env.WORKER_THREADS === '')
    workerEnv.WORKER_THREADS = String(Math.max(1, Math.floor(availableParallelism() / workers)));
  if (!config.REDIS_URL) {
    // Each process counts alone: give each its share, so the deployment-wide limit holds approximately.
    workerEnv.RATE_LIMIT_REQUESTS = String(Math.max(1, Math.ceil(config.RATE_LIMIT_REQUESTS / workers)));
    workerEnv.RATE_LIMIT_UNAUTHENTICATED_REQUESTS = String(
      Math.max(1, Math.ceil(config.RATE_LIMIT_UNAUTHENTICATED_REQUESTS / workers)),
    );
    logger.warn(
      { workers },
      'cluster without REDIS_URL: each process enforces 1/N of the rate limits; set REDIS_URL for exact shared limits',
    );
  }
  // The workers run this same entry point with cluster mode off.
  workerEnv.CLUSTER_WORKERS = '0';
  cluster.setupPrimary({
    args: process.argv
      .slice(2)
      .filter((a, i, all) => !(a === '--cluster' || a.startsWith('--cluster=') || all[i - 1] === '--cluster')),
  });

  let stopping = false;
  const restarts: number[] = [];
  const fork = (): Worker => cluster.fork(workerEnv);
  let listening = 0;
  // Each worker listens once, or twice with the legacy analysis API (LEGACY_PORT), on ports the workers share.
  const listenersPerWorker = config.LEGACY_PORT === undefined ? 1 : 2;
  cluster.on('listening', (worker, address) => {
    listening++;
    logger.info({ worker_pid: worker.process.pid, port: address.port }, 'worker listening');
    if (listening === workers * listenersPerWorker)
      logger.info(
        { workers, port: config.PORT, ...(listenersPerWorker === 2 ? { legacy_port: config.LEGACY_PORT } : {}) },
        'content firewall cluster listening',
      );
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > MAX_RESTARTS) {
      logger.error({ restarts: restarts.length }, 'workers keep exiting: stopping the cluster');
      void shutdown('restart-limit', 1);
      return;
    }
    logger.error({ worker_pid: worker.process.pid, code, signal }, 'worker exited: starting a replacement');
    fork();
  });
  for (let i = 0; i < workers; i++) fork();

  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: Object.keys(cluster.workers ?? {}).length }, 'cluster shutting down: workers drain');
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    const exited = Promise.all(
      alive.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve())))),
    );
    for (const w of alive) if (w.isConnected()) w.send(SHUTDOWN_MESSAGE);
    // Workers bound their own readiness delay and drain; past those and a margin, stop them.
    const killer = setTimeout(
      () => {
        logger.warn('workers did not stop in time: killing them');
        for (const w of alive) if (!w.isDead()) w.process.kill('SIGKILL');
      },
      config.SHUTDOWN_READINESS_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS + 15_000,
    );
    await exited;
    clearTimeout(killer);
    await stopEmbedded();
    logger.info('cluster stopped');
    process.exit(exitCode);
  };
  held.release();
  const onSignal = (signal: string) => {
    const kind = held.requests.classify(signal);
    if (kind === 'first') void shutdown(signal);
    else if (kind === 'second') {
      // Workers first: the embedded cluster is stopped after them, before this process exits.
      forceExit(logger, signal, () => {
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      });
    }
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
