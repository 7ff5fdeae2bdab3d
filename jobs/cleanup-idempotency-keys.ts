import { deleteExpiredIdempotencyKeys } from '../store/idempotency.ts';
import type { JobContext } from './job.ts';

export const name = 'cleanup-idempotency-keys';
export const every = '10 minutes';

/**
 * Deletes idempotency records past their retention (24 h by default, IDEMPOTENCY_TTL_HOURS),
 * RETENTION_BATCH_SIZE rows per statement until none are left. Returns how many went.
 */
export async function run(ctx: JobContext): Promise<number> {
  const now = ctx.clock.now();
  let total = 0;
  for (;;) {
    const n = await deleteExpiredIdempotencyKeys(ctx.db, now, ctx.config.RETENTION_BATCH_SIZE);
    total += n;
    ctx.metrics.idempotencyKeysExpired.inc(n);
    if (n < ctx.config.RETENTION_BATCH_SIZE) return total;
    await ctx.touch();
  }
}
