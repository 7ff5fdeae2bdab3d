/**
 * A service process of its own (`server/main.ts` through tsx) for tests that signal, freeze or kill it:
 * the quietest configuration (no model threads, jobs, webhook deliveries, metrics, Redis or cluster) on a
 * free loopback port, ready once `/healthz` answers. `env` adds to it; an undefined value removes one.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, start } from '../../benchmarks/processes.ts';
import { TEST_MASTER_SECRET } from './harness.ts';

export interface ChildService {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
}

export async function startChildService(
  databaseUrl: string | undefined,
  env: Record<string, string | undefined> = {},
): Promise<ChildService> {
  const port = await freePort();
  const { child } = await start(
    ['server/main.ts'],
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      SECRET_KEY: TEST_MASTER_SECRET,
      WORKER_THREADS: '0',
      JOBS_ENABLED: 'false',
      WEBHOOK_DELIVERY_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      METRICS_ENABLED: 'false',
      REDIS_URL: undefined,
      CLUSTER_WORKERS: undefined,
      DATA_DIR: undefined,
      ...env,
    },
    null,
    port,
  );
  return { child, port, baseUrl: `http://127.0.0.1:${port}` };
}
