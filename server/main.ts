import cluster from 'node:cluster';
import http from 'node:http';
import { loadConfigOrReport } from '../config.ts';
import { startJobs, type Jobs } from '../jobs/scheduler.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { startScanning, type Scanning } from './scanning.ts';
import { startApplication, type Application } from './application.ts';
import { buildLegacyApp } from '../api/legacy/app.ts';
import { serverOptions } from '../api/base-app.ts';
import type { Express } from 'express';
import { Drain } from './drain.ts';
import { clusterWorkers, runPrimary } from './cluster.ts';
import { createMetrics } from '../lib/metrics.ts';
import { exitOnFatalErrors, forceExit, holdSignals, SHUTDOWN_MESSAGE } from './signals.ts';

// Past the drain (SHUTDOWN_TIMEOUT_MS), closing the pools and stopping PostgreSQL get this long.
const SHUTDOWN_MARGIN_MS = 30_000;

/**
 * The process entry point: config → runtime (database, Redis) → app → listen (and the legacy analysis
 * API on its own port when LEGACY_PORT is set). SIGTERM/SIGINT stop
 * accepting, drain in-flight requests (up to SHUTDOWN_TIMEOUT_MS), close the pools and stop the
 * embedded cluster. The process group's copy of the signal is ignored; an operator's second signal
 * exits at once, still stopping the embedded cluster (server/signals.ts). With `--cluster N` (or CLUSTER_WORKERS=N) this
 * process is the primary of N such processes sharing the port instead (server/cluster.ts).
 */
async function main(): Promise<void> {
  const config = loadConfigOrReport();
  if (!config) process.exit(1);
  const logger = createLogger(config.LOG_LEVEL);
  exitOnFatalErrors(logger);
  const workers = clusterWorkers(process.argv.slice(2), config);
  if (workers > 0 && cluster.isPrimary) return runPrimary(config, workers, logger);
  // A stop request while starting is held until start-up is done (or unwound), and what start-up
  // opened is closed if it fails: a signal or a port in use never leaves the embedded PostgreSQL running.
  const held = holdSignals(cluster.isWorker, logger);
  const opened: (() => Promise<unknown>)[] = [];
  let runtime: Runtime, scanning: Scanning, built: Application, jobs: Jobs | null;
  // The v1 listener, and the legacy analysis API's when LEGACY_PORT is set: drained and closed alike.
  const listeners: { server: http.Server; drain: Drain }[] = [];
  try {
    runtime = await openRuntime(config, logger, { superviseEmbedded: true });
    opened.push(() => runtime.close());
    const metrics = createMetrics(config.METRICS_ENABLED);
    // Models load and warm on every worker thread before the port opens: the first scan is as fast as any.
    scanning = await startScanning(config, metrics, logger);
    opened.push(() => scanning.close());
    built = startApplication({
      config,
      db: runtime.db,
      redis: runtime.redis,
      clock: systemClock,
      logger,
      keyring: runtime.keyring,
      engine: scanning.engine,
      metrics,
    });
    opened.push(() => built.close());
    const server = await listen(built.app, config.PORT, config.HOST, listeners);
    const legacy =
      config.LEGACY_PORT === undefined
        ? null
        : await listen(
            buildLegacyApp(built.services),
            config.LEGACY_PORT,
            config.LEGACY_HOST ?? config.HOST,
            listeners,
          );
    logger.info(
      {
        host: config.HOST,
        port: portOf(server, config.PORT),
        ...(legacy ? { legacy_port: portOf(legacy, config.LEGACY_PORT!) } : {}),
        database: runtime.embedded ? 'embedded' : 'DATABASE_URL',
        database_pooler: runtime.pooler,
        redis: Boolean(runtime.redis),
        deployment_mode: config.DEPLOYMENT_MODE,
      },
      'content firewall listening',
    );
    // Scheduled jobs (retention, cleanup) on the same database; any number of processes may run them.
    jobs = config.JOBS_ENABLED
      ? await startJobs({ db: runtime.db, clock: systemClock, logger, metrics, config })
      : null;
  } catch (err) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw err;
  }

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    // Whatever hangs past the drain and a margin, the exit still comes and still stops the embedded PostgreSQL.
    setTimeout(
      () => forceExit(logger, 'shutdown did not finish in time'),
      config.SHUTDOWN_TIMEOUT_MS + SHUTDOWN_MARGIN_MS,
    ).unref();
    // Idle sockets first, and Connection: close on every response still to come (server/drain.ts).
    for (const l of listeners) l.drain.start(l.server);
    const drained = Promise.all(listeners.map((l) => new Promise<void>((resolve) => l.server.close(() => resolve()))));
    // Keep dropping connections as they go idle (a response already on its way was sent keep-alive).
    const reaper = setInterval(() => listeners.forEach((l) => l.server.closeIdleConnections()), 50);
    const timer = setTimeout(() => {
      logger.warn('drain timeout: closing remaining connections');
      for (const l of listeners) l.server.closeAllConnections();
    }, config.SHUTDOWN_TIMEOUT_MS);
    // Running jobs finish (up to SHUTDOWN_TIMEOUT_MS) while requests drain; both before the pool closes.
    await Promise.all([drained, jobs?.stop()]);
    clearTimeout(timer);
    clearInterval(reaper);
    await built.close();
    await scanning.close();
    await runtime.close();
    logger.info('stopped');
    process.exit(0);
  };
  // Classified against the requests held during start-up, so the copy of a held signal stays a duplicate.
  const onStop = (reason: string) => {
    const kind = held.requests.classify(reason);
    if (kind === 'first') void shutdown(reason);
    else if (kind === 'second') forceExit(logger, reason);
    else logger.debug({ signal: reason }, 'stop already under way');
  };
  const early = held.release();
  process.on('SIGTERM', () => onStop('SIGTERM'));
  process.on('SIGINT', () => onStop('SIGINT'));
  if (cluster.isWorker) {
    // The primary asks every worker to drain (a Ctrl-C may already have reached this process: then a duplicate).
    process.on('message', (m) => m === SHUTDOWN_MESSAGE && onStop('cluster shutdown'));
    process.on('disconnect', () => onStop('primary gone'));
  }
  if (early) void shutdown(early);
}

/** Serves `app` on `port` and `host`, with a drain (added to `listeners` once listening). */
async function listen(
  app: Express,
  port: number,
  host: string,
  listeners: { server: http.Server; drain: Drain }[],
): Promise<http.Server> {
  const server = http.createServer(serverOptions(app));
  // Before the app's listener: marks responses during a drain with Connection: close.
  const drain = new Drain(server);
  server.on('request', app);
  // Longer than common load balancers' idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  listeners.push({ server, drain });
  return server;
}

function portOf(server: http.Server, configured: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : configured;
}

main().catch((err: Error) => {
  process.stderr.write(`content firewall failed to start: ${err.message}\n`);
  process.exit(1);
});
