import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool } from '../../store/db.ts';
import { EmbeddedPostgres, type EmbeddedHandle } from '../../store/embedded.ts';
import { isPortFree } from '../../store/local-port.ts';
import { migrate } from '../../store/migrate.ts';

/**
 * A PostgreSQL cluster of a test's own, from the embedded binaries, in a temporary directory: fault
 * tests restart, stop and kill it without touching the shared server on :5432. Always on the same
 * port, so clients reconnect to the same URL. Migrated on creation.
 */
export class ThrowawayPostgres {
  private handle: EmbeddedHandle;

  private constructor(
    private readonly dir: string,
    handle: EmbeddedHandle,
  ) {
    this.handle = handle;
  }

  /** Initialises (a few seconds), starts and migrates a new cluster. */
  static async create(): Promise<ThrowawayPostgres> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cf-faults-pg-'));
    // The postgres system user (as root) must reach its cluster under it.
    chmodSync(dir, 0o711);
    const pg = new ThrowawayPostgres(dir, await new EmbeddedPostgres(dir).ensure());
    const pool = createPool(pg.url, 1, () => undefined);
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
    return pg;
  }

  /** Connection string to the `postgres` database (stable across restarts). */
  get url(): string {
    return this.handle.url;
  }

  /** Fast shutdown, as `pg_ctl stop -m fast`: every connection is terminated (57P01). */
  async stop(): Promise<void> {
    await this.handle.stop();
  }

  /**
   * Starts it again on the same port (clients keep their URL): waits while the port is still held,
   * and retries while a killed postmaster's children still hold its shared memory.
   */
  async start(): Promise<void> {
    const url = this.handle.url;
    const port = Number(new URL(url).port);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        // ensure() would move to another port if this one were taken.
        if (!(await isPortFree(port))) throw new Error(`port ${port} still in use`);
        this.handle = await new EmbeddedPostgres(this.dir).ensure();
        if (this.handle.url !== url) throw new Error(`restarted on another address: ${this.handle.url}`);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** `pg_ctl restart -m fast`. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** SIGKILL of the postmaster (a crash): its backends exit when they notice, nothing is shut down cleanly. */
  kill(): void {
    process.kill(this.postmasterPid(), 'SIGKILL');
  }

  /** Stops it (whatever its state) and removes its files. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => {
      try {
        process.kill(this.postmasterPid(), 'SIGKILL');
      } catch {
        // not running
      }
    });
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The end of the cluster's server log, for a failing test's message. */
  logTail(chars = 3000): string {
    try {
      return readFileSync(path.join(this.clusterDir(), 'embedded.log'), 'utf8').slice(-chars);
    } catch {
      return '(no log)';
    }
  }

  private clusterDir(): string {
    return (JSON.parse(readFileSync(path.join(this.dir, 'embedded-postgres.json'), 'utf8')) as { clusterDir: string })
      .clusterDir;
  }

  private postmasterPid(): number {
    return Number.parseInt(readFileSync(path.join(this.clusterDir(), 'postmaster.pid'), 'utf8'), 10);
  }
}
