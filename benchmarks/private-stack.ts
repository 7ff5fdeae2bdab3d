/**
 * A private PostgreSQL cluster and a private Redis for `npm run bench:scaling`: each on a free port
 * in a temporary directory, started and removed by the benchmark, so their CPU, WAL and command
 * counts belong to the benchmark alone (no other test's database or keys share them).
 *
 * PostgreSQL: initdb / pg_ctl from the newest /usr/lib/postgresql/<version>/bin (or PG_BIN), as the
 * `postgres` system user when this process is root (initdb refuses root), trust authentication on
 * 127.0.0.1 only, the Unix socket in the temporary directory. Settings are PostgreSQL's defaults
 * (fsync and synchronous_commit on) apart from the port, the socket and `max_connections`.
 * Redis: `redis-server` (or REDIS_SERVER) without persistence, on 127.0.0.1.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
  version: string;
  /** The postmaster's pid (the root of PostgreSQL's process tree). */
  pid(): number;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<version>/bin holding initdb, or PG_BIN. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (set PG_BIN)`);
  return path.join(root, versions[0]!, 'bin');
}

/** Runs a PostgreSQL tool as the postgres system user when we are root (initdb and postgres refuse root). */
async function asOwner(cmd: string, args: string[], root: boolean): Promise<string> {
  const { stdout } = root ? await run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : await run(cmd, args);
  return stdout;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'cf-scaling-pg-'));
  const data = path.join(dir, 'data');
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  await asOwner(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions'],
    root,
  ).catch(async (err: Error) => {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${err.message}`);
  });
  await asOwner(
    path.join(bin, 'pg_ctl'),
    [
      '-D',
      data,
      '-l',
      path.join(dir, 'postgres.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      'start',
    ],
    root,
  ).catch((err: Error) => {
    const log = existsSync(path.join(dir, 'postgres.log')) ? readFileSync(path.join(dir, 'postgres.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pg_ctl start failed: ${err.message}\n${log.slice(-2000)}`);
  });
  const version = (await asOwner(path.join(bin, 'postgres'), ['--version'], root)).trim();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version,
    pid: () => Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: async () => {
      await asOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], root).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  url: string;
  version: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const cmd = process.env.REDIS_SERVER ?? 'redis-server';
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'cf-scaling-redis-'));
  const { stdout: version } = await run(cmd, ['--version']).catch(() => {
    throw new Error(`${cmd} not found (install redis-server or set REDIS_SERVER)`);
  });
  const child = spawn(
    cmd,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/i.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out.slice(-2000)}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    version: version.trim(),
    child,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
