import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../benchmarks/processes.ts';
import { TEST_MASTER_SECRET } from './harness.ts';
import { TEST_CA_FILE } from './receiver.ts';

export interface WebhookServiceOptions {
  databaseUrl: string;
  /** The process's manual clock starts here (ms since the epoch). */
  at: number;
  /** WEBHOOK_TIMEOUT_MS: one attempt's limit (the lease is a multiple of it). */
  timeoutMs: number;
  /** Serve the API on a free port too (otherwise the process only delivers). */
  serve?: boolean;
  /** More environment (e.g. WEBHOOK_CONCURRENCY). */
  env?: Record<string, string>;
}

/**
 * A separate service process (test/support/webhook-child.ts) for the crash-and-restart tests: the
 * app on the given database with a manual clock this process moves, its delivery pump, and with
 * `serve` the API on 127.0.0.1. Tests SIGKILL it mid-schedule and start another on the same database.
 */
export class WebhookService {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number | null,
    public now: number,
  ) {}

  /** Forks it and resolves once it runs. */
  static async start(o: WebhookServiceOptions): Promise<WebhookService> {
    const port = o.serve ? await freePort() : null;
    const child = fork(path.join(import.meta.dirname, 'webhook-child.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        DATABASE_URL: o.databaseUrl,
        REDIS_URL: '',
        LOG_LEVEL: 'silent',
        WORKER_THREADS: '0',
        METRICS_ENABLED: 'false',
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
        WEBHOOK_TIMEOUT_MS: String(o.timeoutMs),
        WEBHOOK_POLL_MS: '25',
        ...(port !== null ? { CHILD_PORT: String(port) } : {}),
        CHILD_CLOCK: new Date(o.at).toISOString(),
        CHILD_MASTER_SECRET: TEST_MASTER_SECRET,
        ...o.env,
      },
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`service process exited early (${code})`)));
    });
    return new WebhookService(child, port, o.at);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Moves its clock; resolves once it has. */
  async setTime(at: number): Promise<void> {
    this.now = at;
    await new Promise<void>((resolve) => {
      this.child.once('message', () => resolve());
      this.child.send({ set: new Date(at).toISOString() });
    });
  }

  /** SIGKILL, resolved once it is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGKILL');
    await exited;
  }
}
