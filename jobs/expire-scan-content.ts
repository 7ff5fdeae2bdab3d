import { expireScanContent } from '../store/retention.ts';
import { inBatches, type JobContext } from './job.ts';

export const name = 'expire-scan-content';
export const every = '10 minutes';

/**
 * Clears captured scan content past its `content_expires_at` (set at scan time from
 * SCAN_CONTENT_RETENTION_DAYS), RETENTION_BATCH_SIZE rows per statement until none are left, so
 * row locks stay short. Every organization's rows: a system job. Returns how many were cleared.
 */
export async function run(ctx: JobContext): Promise<number> {
  const now = ctx.clock.now();
  return inBatches(ctx, ctx.metrics.scanContentExpired, (size) => expireScanContent(ctx.db, now, size));
}
