import type { Db } from './db.ts';

/**
 * Hands back the Agenda jobs (`agenda_jobs`, the backend's table) that process `worker` locked but
 * never started, so another process runs them on time instead of after the lock lifetime.
 */
export async function releaseUnstartedJobLocks(db: Db, worker: string): Promise<void> {
  await db.query('UPDATE agenda_jobs SET locked_at = NULL WHERE last_modified_by = $1 AND locked_at IS NOT NULL', [
    worker,
  ]);
}
