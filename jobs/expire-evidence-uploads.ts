import { evidenceRemoverFromConfig } from '../services/evidence/uploads.ts';
import { deleteUnverifiedUploads, listAbandonedUploads } from '../store/evidence.ts';
import type { JobContext } from './job.ts';

export const name = 'expire-evidence-uploads';
export const every = '1 hour';

/** How long past its URL's expiry an unverified upload is kept (an upload that began in time may still stream). */
const GRACE_MS = 3_600_000;

/**
 * Deletes evidence uploads whose URL expired (plus an hour's grace) without their bytes being
 * verified: whatever bytes arrived are removed from the storage first, then the rows,
 * RETENTION_BATCH_SIZE at a time. Verified uploads are kept (labeled events reference them). Returns
 * how many went.
 */
export async function run(ctx: JobContext): Promise<number> {
  const storage = evidenceRemoverFromConfig(ctx.config);
  const before = new Date(ctx.clock.now().getTime() - GRACE_MS);
  let total = 0;
  for (;;) {
    const batch = await listAbandonedUploads(ctx.db, before, ctx.config.RETENTION_BATCH_SIZE);
    for (const u of batch) await storage.remove({ orgId: u.org_id, key: u.storage_key });
    total += await deleteUnverifiedUploads(
      ctx.db,
      batch.map((u) => u.storage_key),
    );
    if (batch.length < ctx.config.RETENTION_BATCH_SIZE) return total;
    await ctx.touch();
  }
}
