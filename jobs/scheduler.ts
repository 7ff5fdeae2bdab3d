import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agenda, InMemoryNotificationChannel, type AgendaBackend, type Job, type JobRepository } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../store/db.ts';
import { poolerOf } from '../store/pooler.ts';
import { releaseUnstartedJobLocks } from '../store/jobs.ts';
import type { JobContext, JobMetrics, JobModule } from './job.ts';
import { JOBS } from './registry.ts';

// Agenda's default: a run that has not touched its lock for this long is presumed dead, and
// another process may take the job over.
const LOCK_LIFETIME_MS = 10 * 60_000;
// JobContext.touch writes at most this often (well inside the lock lifetime).
const TOUCH_EVERY_MS = 30_000;

export interface JobsDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  metrics: JobMetrics;
  config: Readonly<Config>;
}

export interface JobsOptions {
  /** The jobs to schedule; default the registry. Tests pass their own. */
  jobs?: readonly JobModule[];
  /** How often Agenda looks for due jobs (ms; default 5000). New jobs are also announced at once over LISTEN/NOTIFY, except behind a transaction pooler. */
  processEvery?: number;
  /** The longest stop() waits for running jobs (ms; default SHUTDOWN_TIMEOUT_MS). */
  drainTimeoutMs?: number;
}

export interface Jobs {
  agenda: Agenda;
  /**
   * Runs a job now (as a one-off Agenda job, on whichever process locks it first) and resolves when
   * that run has completed; the one-off row is removed afterwards. For tests and the CLI.
   * @throws JobFailedError when the run failed; Error for a job name not registered here.
   */
  runNow(name: string): Promise<void>;
  /** Graceful: stops taking jobs, waits for running ones (up to drainTimeoutMs), releases this process's locks. */
  stop(): Promise<void>;
}

/** A job run that failed; `reason` is the message Agenda stored (the original class does not survive). */
export class JobFailedError extends Error {
  constructor(
    readonly job: string,
    readonly reason: string,
  ) {
    super(`job ${job} failed: ${reason}`);
    this.name = 'JobFailedError';
  }
}

/**
 * Starts Agenda on the service's own database and pool (`agenda_jobs`, created by migration 0005:
 * the backend runs with ensureSchema off). Each job is registered with `agenda.every` under its
 * stable name, an upsert of one row, so restarts and N processes leave one row per job and keep its
 * schedule; Agenda's row lock (FOR UPDATE SKIP LOCKED) makes each due run execute in one process.
 * Holds one pool connection for LISTEN while started, except behind a transaction pooler
 * (DATABASE_POOLER: notifications off, new jobs are found by polling every processEvery).
 */
export async function startJobs(deps: JobsDeps, options: JobsOptions = {}): Promise<Jobs> {
  const jobs = options.jobs ?? JOBS;
  const drainTimeoutMs = options.drainTimeoutMs ?? deps.config.SHUTDOWN_TIMEOUT_MS;
  // Unique per scheduler: Agenda drops state events whose source has its own name (so unnamed
  // instances never hear each other), and last_modified_by shows which process locked a row.
  const name = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const dueAt = new Map<string, Date>();
  // Behind a transaction pooler LISTEN cannot work (its server connection goes back to the pool after
  // the statement): other processes' new jobs are found by polling, this process's own at once (in memory).
  const pooled = poolerOf(deps.db) === 'transaction';
  const backend = new PostgresBackend({ pool: deps.db, ensureSchema: false, disableNotifications: pooled });
  const stopChannelWatch = keepNotificationsAlive(backend, deps.logger);
  const agenda = new Agenda({
    backend: recordingDueTimes(backend, dueAt),
    ...(pooled ? { notificationChannel: new InMemoryNotificationChannel() } : {}),
    name,
    processEvery: options.processEvery ?? 5_000,
    defaultLockLifetime: LOCK_LIFETIME_MS,
  });
  agenda.on('error', (err) => deps.logger.error({ err: err.message }, 'job scheduler error'));

  for (const job of jobs) {
    agenda.define(job.name, (run: Job) => runJob(job, run, deps, dueAt), { concurrency: 1, lockLimit: 1 });
  }
  for (const job of jobs) await agenda.every(job.every, job.name);
  await agenda.start();
  deps.logger.info({ scheduler: name, jobs: jobs.map((j) => j.name) }, 'jobs started');

  return {
    agenda,
    runNow: async (jobName) => {
      if (!jobs.some((j) => j.name === jobName)) throw new Error(`unknown job: ${jobName}`);
      const created = await agenda.now(jobName);
      const id = String(created.attrs._id);
      try {
        // Polled rather than awaited as an event: the run may happen in another process.
        for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
          const row = (await agenda.queryJobs({ id })).jobs[0];
          if (!row) throw new Error(`job ${jobName} (${id}) was removed before it ran`);
          if (row.lastFinishedAt && !row.lockedAt) {
            if (row.failReason) throw new JobFailedError(jobName, row.failReason);
            return;
          }
          await sleep(wait);
        }
      } finally {
        await agenda.cancel({ id });
      }
    },
    stop: async () => {
      stopChannelWatch();
      const drained = await agenda.drain({ timeout: drainTimeoutMs });
      dueAt.clear();
      if (drained.timedOut) {
        deps.logger.warn(
          { running: drained.running },
          'jobs still running at shutdown: their locks lapse after the lock lifetime',
        );
        return;
      }
      // drain() leaves jobs this process locked but had not started (due within processEvery)
      // locked until the lock lifetime; hand them back so another process runs them on time.
      await releaseUnstartedJobLocks(deps.db, name);
    },
  };
}

/** One run of `job` inside Agenda's handler: context, metrics, log line; rethrows so Agenda records the failure. */
async function runJob(job: JobModule, run: Job, deps: JobsDeps, dueAt: Map<string, Date>): Promise<void> {
  const id = String(run.attrs._id);
  const due = dueAt.get(id);
  dueAt.delete(id);
  // Both instants are Agenda's own (process time): lastRunAt is when this run started.
  if (due && run.attrs.lastRunAt)
    deps.metrics.jobLag.observe({ job: job.name }, Math.max(0, run.attrs.lastRunAt.getTime() - due.getTime()) / 1000);
  const logger = deps.logger.child({ job: job.name, job_run: id });
  let lastTouch = performance.now();
  const ctx: JobContext = {
    db: deps.db,
    clock: deps.clock,
    logger,
    metrics: deps.metrics,
    config: deps.config,
    touch: async () => {
      if (run.getCanceledMessage() === undefined && performance.now() - lastTouch < TOUCH_EVERY_MS) return;
      lastTouch = performance.now();
      await run.touch();
    },
  };
  const started = performance.now();
  try {
    const result = await job.run(ctx);
    deps.metrics.jobRuns.inc({ job: job.name, outcome: 'success' });
    logger.info({ result, duration_ms: Math.round(performance.now() - started) }, 'job done');
  } catch (err) {
    deps.metrics.jobRuns.inc({ job: job.name, outcome: 'failure' });
    logger.error(
      { err: err instanceof Error ? err.message : String(err), duration_ms: Math.round(performance.now() - started) },
      'job failed',
    );
    throw err;
  } finally {
    deps.metrics.jobDuration.observe({ job: job.name }, (performance.now() - started) / 1000);
  }
}

// After the channel's own reconnect attempts are spent (about 80 s of backoff), try again this often.
const CHANNEL_RETRY_MS = 15_000;

/**
 * Keeps the LISTEN connection of Agenda's PostgreSQL backend alive across database restarts. The
 * channel is an EventEmitter that emits `'error'` when its connection breaks (57P01 on a restart):
 * with no listener that event kills the process. It reconnects by itself with backoff, but gives up
 * after 10 attempts (state `'error'`); from then on this starts it again every CHANNEL_RETRY_MS.
 * Jobs never depend on it (Agenda also polls every processEvery): notifications only make new jobs
 * start sooner. Returns a function that stops watching.
 */
function keepNotificationsAlive(backend: PostgresBackend, logger: Logger): () => void {
  const channel = backend.notificationChannel;
  if (!channel) return () => undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  let lost = false;
  channel.on('error', (err: Error) => {
    lost = true;
    logger.warn({ err: err.message, state: channel.state }, 'job notification channel: connection lost, reconnecting');
  });
  channel.on('stateChange', (state: string) => {
    // A reconnect that was waiting for a connection when the scheduler stopped completes afterwards:
    // let go of its LISTEN connection, or closing the pool would wait for it forever.
    if (state === 'connected' && stopped) return void channel.disconnect().catch(() => undefined);
    if (state === 'connected' && lost) {
      lost = false;
      logger.info('job notification channel reconnected');
    }
    if (state !== 'error' || stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!stopped) channel.connect().catch(() => undefined);
    }, CHANNEL_RETRY_MS);
    retry.unref();
  });
  return () => {
    stopped = true;
    clearTimeout(retry);
  };
}

/**
 * The backend, with a repository that remembers when each job it locks was due. Agenda moves
 * `nextRunAt` to the following run before calling the handler, so job_lag_seconds needs the due
 * time from the moment of locking (getNextJobToRun is Agenda's only locking path).
 */
function recordingDueTimes(backend: PostgresBackend, dueAt: Map<string, Date>): AgendaBackend {
  const repository = backend.repository;
  const getNextJobToRun: JobRepository['getNextJobToRun'] = async (...args) => {
    const job = await repository.getNextJobToRun(...args);
    if (job?._id && job.nextRunAt) dueAt.set(String(job._id), job.nextRunAt);
    return job;
  };
  const recording = new Proxy(repository, {
    get: (target, prop, receiver) =>
      prop === 'getNextJobToRun' ? getNextJobToRun : Reflect.get(target, prop, receiver),
  });
  return {
    name: backend.name,
    repository: recording,
    notificationChannel: backend.notificationChannel,
    logger: backend.logger,
    ownsConnection: backend.ownsConnection,
    connect: () => backend.connect(),
    disconnect: () => backend.disconnect(),
  };
}
