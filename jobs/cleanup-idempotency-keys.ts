import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { deleteExpiredIdempotencyKeys } from '../store/idempotency.ts';

export const name = 'cleanup-idempotency-keys';
/** How often it runs. */
export const everyMs = 10 * 60_000;

/** Deletes idempotency records past their 24 h retention, in batches. Returns how many went. */
export async function run(ctx: { db: Db; clock: Clock }): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteExpiredIdempotencyKeys(ctx.db, ctx.clock.now());
    total += n;
    if (n === 0) return total;
  }
}
