import {
  advanceWatermark,
  latencyBinsOf,
  pendingBuckets,
  rollUpBuckets,
  rollUpLatencyBins,
} from '../store/analytics-rollup.ts';
import type { JobContext } from './job.ts';

export const name = 'rollup-analytics';
/** With Agenda's 5 s poll, a scan is in the analytics answers at most about 40 s after it committed (docs/analytics.md). */
export const every = '30 seconds';

/** Buckets recomputed per statement: bounds one statement's work (a bucket is 15 minutes of one organization's scans). */
const BUCKETS_PER_STATEMENT = 100;

/**
 * Folds scans into the 15-minute analytics buckets (store/analytics-rollup.ts): finds the buckets
 * holding scans the last run did not see (late ones included), recomputes each whole from its scans,
 * then the hour and day latency sketches holding them, then moves the watermark. Every bucket write is a replace, so a run killed halfway leaves no double
 * count: the next run starts from the same watermark and recomputes the same buckets. The first run
 * rolls up every bucket that has scans. Every organization's scans: a system job.
 */
export async function run(ctx: JobContext): Promise<{ buckets: number; latencyBins: number }> {
  const pending = await pendingBuckets(ctx.db);
  for (let i = 0; i < pending.buckets.length; i += BUCKETS_PER_STATEMENT) {
    const batch = pending.buckets.slice(i, i + BUCKETS_PER_STATEMENT);
    await rollUpBuckets(ctx.db, batch);
    ctx.metrics.analyticsBucketsRolledUp.inc(batch.length);
    await ctx.touch();
  }
  // The hour and day latency sketches of those buckets, merged once all of them are rolled up.
  const bins = latencyBinsOf(pending.buckets);
  for (let i = 0; i < bins.length; i += BUCKETS_PER_STATEMENT) {
    await rollUpLatencyBins(ctx.db, bins.slice(i, i + BUCKETS_PER_STATEMENT));
    await ctx.touch();
  }
  if (pending.reset)
    ctx.logger.warn('analytics watermark ahead of the cluster (a restore?): every bucket rolled up again');
  await advanceWatermark(ctx.db, pending.next, ctx.clock.now(), pending.reset);
  return { buckets: pending.buckets.length, latencyBins: bins.length };
}
