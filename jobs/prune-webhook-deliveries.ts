import { pruneFinishedDeliveries } from '../store/retention.ts';
import { inBatches, type JobContext } from './job.ts';

export const name = 'prune-webhook-deliveries';
export const every = '1 hour';

/**
 * Deletes finished webhook deliveries (`succeeded`, `dead_lettered`) older than
 * WEBHOOK_DELIVERY_RETENTION_DAYS, RETENTION_BATCH_SIZE rows per statement until none are left, so
 * the outbox does not grow without bound. Deliveries still retrying are kept. Returns how many went.
 */
export async function run(ctx: JobContext): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - ctx.config.WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400_000);
  return inBatches(ctx, ctx.metrics.webhookDeliveriesPruned, (size) => pruneFinishedDeliveries(ctx.db, cutoff, size));
}
