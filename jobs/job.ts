import type { Metrics } from '../lib/metrics.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../store/db.ts';

/** The metrics the scheduler and the jobs write (the app's `Metrics` has them all). */
export type JobMetrics = Pick<
  Metrics,
  | 'jobRuns'
  | 'jobDuration'
  | 'jobLag'
  | 'scanContentExpired'
  | 'idempotencyKeysExpired'
  | 'webhookDeliveriesPruned'
  | 'analyticsBucketsRolledUp'
>;

/** What a job's `run` receives. Time comes from `clock`, never `Date.now()`, so tests can move it. */
export interface JobContext {
  db: Db;
  clock: Clock;
  /** A child logger carrying the job name and run id. */
  logger: Logger;
  metrics: JobMetrics;
  config: Readonly<Config>;
  /**
   * Call between batches of long work: keeps this run's lock alive past Agenda's lock lifetime
   * (throttled to one write per 30 s).
   * @throws when Agenda has given up on this run (its lock expired), so the loop stops.
   */
  touch(): Promise<void>;
}

/** A job module: `jobs/<verb-noun>.ts` exports these three and is listed in `jobs/registry.ts`. */
export interface JobModule {
  /** Stable name: the Agenda job name, the metric label, and the one `agenda_jobs` row. */
  readonly name: string;
  /** Agenda interval: a human interval ('10 minutes'), milliseconds, or a cron expression. */
  readonly every: string | number;
  /** One run. Resolves with a summary for the log (e.g. rows affected); throws to count a failure. */
  run(ctx: JobContext): Promise<unknown>;
}

/**
 * The loop of every retention job: runs `batch(size)` — one statement over at most
 * RETENTION_BATCH_SIZE rows, returning how many it affected — until a batch comes back short, so no
 * statement holds many row locks for long; counts each batch into `counter` and renews the run's
 * lock between batches. Returns the total.
 */
export async function inBatches(
  ctx: JobContext,
  counter: { inc(n: number): void },
  batch: (size: number) => Promise<number>,
): Promise<number> {
  const size = ctx.config.RETENTION_BATCH_SIZE;
  let total = 0;
  for (;;) {
    const n = await batch(size);
    total += n;
    counter.inc(n);
    if (n < size) return total;
    await ctx.touch();
  }
}
