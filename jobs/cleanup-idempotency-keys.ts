import { deleteExpiredIdempotencyKeys } from '../store/idempotency.ts';
import { deleteExpiredOrgCreations } from '../store/org-creations.ts';
import { inBatches, type JobContext } from './job.ts';

export const name = 'cleanup-idempotency-keys';
export const every = '10 minutes';

/**
 * Deletes idempotency records past their retention (24 h by default, IDEMPOTENCY_TTL_HOURS): the
 * organizations' and those of organization creation (keyed by subject), RETENTION_BATCH_SIZE rows per
 * statement until none are left. Returns how many went.
 */
export async function run(ctx: JobContext): Promise<number> {
  const now = ctx.clock.now();
  const keys = await inBatches(ctx, ctx.metrics.idempotencyKeysExpired, (size) =>
    deleteExpiredIdempotencyKeys(ctx.db, now, size),
  );
  const creations = await inBatches(ctx, ctx.metrics.idempotencyKeysExpired, (size) =>
    deleteExpiredOrgCreations(ctx.db, now, size),
  );
  return keys + creations;
}
