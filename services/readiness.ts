import { ping, type Db } from '../store/db.ts';

/** Whether this process can serve: today, whether its database answers. */
export async function databaseReady(db: Db): Promise<boolean> {
  try {
    await ping(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether this process is on its way out. Set at the start of a graceful stop (SIGTERM), before the
 * listener closes: `/readyz` answers 503 from then on, so a load balancer's health checks take the
 * node out of rotation while it still serves whatever the balancer sends meanwhile
 * (SHUTDOWN_READINESS_DELAY_MS, server/main.ts).
 */
export class Lifecycle {
  private stopping = false;

  /** Marks the process as stopping; `/readyz` answers 503 `service.not_ready` from now on. */
  stop(): void {
    this.stopping = true;
  }

  get isStopping(): boolean {
    return this.stopping;
  }
}
