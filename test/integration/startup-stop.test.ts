import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * What start-up opened is closed when start-up cannot finish or is asked to stop: the embedded
 * PostgreSQL is never left running behind a process that is gone.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cf-startup-'));
  chmodSync(dir, 0o711);
  dirs.push(dir);
  return dir;
}

const pidFile = (dir: string) => path.join(dir, 'pg', 'postmaster.pid');

afterEach(() => {
  for (const dir of dirs.splice(0)) {
    // A failed run may leave the cluster up: stop it before removing its files.
    if (existsSync(pidFile(dir))) {
      try {
        process.kill(Number.parseInt(readFileSync(pidFile(dir), 'utf8'), 10), 'SIGINT');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts the server on the embedded default; `onLine` sees every output line (JSON logs at info). */
function startServer(dir: string, port: number, args: string[], onLine: (line: string, child: ReturnType<typeof spawn>) => void) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKER_THREADS: '1' };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY', 'CLUSTER_WORKERS']) delete env[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const feed = (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) onLine(line, child);
  };
  child.stdout!.on('data', feed);
  child.stderr!.on('data', feed);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

describe('start-up that cannot finish, or is asked to stop, leaves nothing running', () => {
  it('port in use: exits 1 saying so, and stops the embedded PostgreSQL it started', { timeout: 90_000 }, async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = dataDir();
    const lines: string[] = [];
    try {
      const { exited } = startServer(dir, port, [], (line) => lines.push(line));
      expect(await exited).toEqual({ code: 1, signal: null });
    } finally {
      blocker.close();
    }
    expect(lines.some((l) => l.includes('embedded PostgreSQL started'))).toBe(true);
    expect(lines.some((l) => l.includes('EADDRINUSE'))).toBe(true);
    expect(existsSync(pidFile(dir))).toBe(false);
  });

  for (const args of [[], ['--cluster', '1']]) {
    it(`SIGTERM while starting${args.length ? ' (cluster primary)' : ''}: stops cleanly, exit 0, embedded PostgreSQL stopped`, { timeout: 90_000 }, async () => {
      const dir = dataDir();
      let signalled = false;
      const { exited } = startServer(dir, 0, args, (line, child) => {
        // The cluster is up, the models are not loaded yet: a signal now used to kill the process outright.
        if (!signalled && line.includes('embedded PostgreSQL started')) {
          signalled = true;
          child.kill('SIGTERM');
        }
      });
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(signalled).toBe(true);
      expect(existsSync(pidFile(dir))).toBe(false);
    });
  }
});
