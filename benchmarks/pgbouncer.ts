/**
 * A real PgBouncer (Debian's package, 1.18: no protocol-level prepared statements in transaction
 * mode) of its own, on a free loopback port, in front of a PostgreSQL server (default the local one
 * on 127.0.0.1:5432), in a temporary folder: every database passes through under its own name
 * (`* = host=… port=…`), auth_type=trust with an auth_file of the one user. Used by
 * `npm run bench:scan-insert` and, through test/support/pgbouncer.ts, by the tests (the global setup
 * of `npm run test:pgbouncer`, test/integration/pgbouncer.test.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';

export interface PgBouncerOptions {
  /** The server behind it (default 127.0.0.1:5432). */
  serverHost?: string;
  serverPort?: number;
  /** The user clients log in as (trust: no password); default postgres. */
  user?: string;
  /** Server connections per database and user (default 20). */
  poolSize?: number;
  /** `transaction` (default) or `session`. */
  poolMode?: 'transaction' | 'session';
  /** Extra `[pgbouncer]` settings, e.g. `{ server_reset_query_always: '1' }`. */
  settings?: Record<string, string>;
}

const BINARY = '/usr/sbin/pgbouncer';

/** Whether Debian's `pgbouncer` is installed (install: `apt-get install pgbouncer`, with a policy-rc.d exiting 101). */
export function pgbouncerInstalled(): boolean {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

export class PgBouncer {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly user: string,
  ) {}

  /** `postgres://user@127.0.0.1:<port>/<database>`: the database as PgBouncer serves it. */
  url(database: string): string {
    return `postgres://${this.user}@127.0.0.1:${this.port}/${database}`;
  }

  /** `url` with its host and port replaced by this PgBouncer's (the same database, pooled). */
  through(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Its log so far (connection and error lines), for a failed test's message. */
  log(): string {
    try {
      return readFileSync(path.join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Writes the configuration, starts PgBouncer and resolves once it serves a query. */
  static async start(o: PgBouncerOptions = {}): Promise<PgBouncer> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'cf-pgbouncer-'));
    // Run as root, PgBouncer drops to the postgres user (-u): it must read its files and write its log.
    chmodSync(dir, 0o777);
    const user = o.user ?? 'postgres';
    writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
    const settings: Record<string, string> = {
      listen_addr: '127.0.0.1',
      listen_port: String(port),
      unix_socket_dir: '',
      auth_type: 'trust',
      auth_file: path.join(dir, 'userlist.txt'),
      pool_mode: o.poolMode ?? 'transaction',
      default_pool_size: String(o.poolSize ?? 20),
      max_client_conn: '1000',
      // pg and psql send these at startup; PgBouncer refuses unknown startup parameters otherwise.
      ignore_startup_parameters: 'extra_float_digits,options',
      admin_users: user,
      logfile: path.join(dir, 'pgbouncer.log'),
      log_connections: '0',
      log_disconnections: '0',
      ...o.settings,
    };
    const server = `host=${o.serverHost ?? '127.0.0.1'} port=${o.serverPort ?? 5432}`;
    const ini = `[databases]\n* = ${server}\n\n[pgbouncer]\n${Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n')}\n`;
    const config = path.join(dir, 'pgbouncer.ini');
    writeFileSync(config, ini, { mode: 0o644 });
    const bouncer = new PgBouncer(port, dir, user);
    await bouncer.spawn(config);
    return bouncer;
  }

  private async spawn(config: string): Promise<void> {
    const args = process.getuid?.() === 0 ? ['-u', 'postgres', config] : [config];
    const child = spawn(BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`pgbouncer exited ${child.exitCode}: ${stderr.trim()} ${this.log().slice(-2000)}`);
      const c = new pg.Client({ connectionString: this.url('postgres'), connectionTimeoutMillis: 1_000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(
            `pgbouncer on :${this.port} did not serve: ${(err as Error).message} ${this.log().slice(-2000)}`,
            {
              cause: err,
            },
          );
      } finally {
        await c.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Immediate shutdown (SIGTERM; SIGKILL after 5 s); every client connection drops. Removes its folder. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(killer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
