import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DUPLICATE_SIGNAL_MS } from '../../server/signals.ts';

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

/** The environment of a server (or CLI) on the embedded default under `dir`. */
function serverEnv(dir: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, HOST: '127.0.0.1', ...env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY', 'CLUSTER_WORKERS']) delete merged[k];
  return merged;
}

/**
 * Starts the server on the embedded default; `onLine` sees every output line (JSON logs at info).
 * `npm`: as `npm start` in a process group of its own, as a terminal runs it, so the test can signal
 * the group the way Ctrl-C does (`process.kill(-child.pid, …)`).
 */
function startServer(
  dir: string,
  port: number,
  args: string[],
  onLine: (line: string, child: ReturnType<typeof spawn>) => void,
  o: { npm?: boolean; env?: Record<string, string> } = {},
) {
  const env = serverEnv(dir, { PORT: String(port), LOG_LEVEL: 'info', WORKER_THREADS: '1', ...o.env });
  const child = o.npm
    ? spawn('npm', ['start', ...(args.length ? ['--', ...args] : [])], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      })
    : spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let out = '';
  const feed = (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) onLine(line, child);
  };
  child.stdout!.on('data', feed);
  child.stderr!.on('data', feed);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
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
    it(
      `SIGTERM while starting${args.length ? ' (cluster primary)' : ''}: stops cleanly, exit 0, embedded PostgreSQL stopped`,
      { timeout: 90_000 },
      async () => {
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
      },
    );
  }
});

/** Every process still running with `dir` in its command line (a postmaster started on the cluster there). */
function postmastersOf(dir: string): string[] {
  const r = spawnSync('pgrep', ['-a', '-f', `${dir}/pg`], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean);
}

// A signal to the process group, as Ctrl-C in a terminal: npm forwards it to the server, which also got
// it directly — two copies, milliseconds apart.
const group = (child: ReturnType<typeof spawn>, signal: NodeJS.Signals) => process.kill(-child.pid!, signal);

describe('a signal to the whole process group of npm start (Ctrl-C) stops cleanly, never orphaning the embedded PostgreSQL', () => {
  for (const args of [[], ['--cluster', '1']]) {
    it(
      `SIGINT to the group once serving${args.length ? ' (cluster)' : ''}: one drain, exit 0, the cluster stopped`,
      { timeout: 90_000 },
      async () => {
        const dir = dataDir();
        const lines: string[] = [];
        let signalled = false;
        const { exited } = startServer(
          dir,
          0,
          args,
          (line, child) => {
            lines.push(line);
            if (!signalled && /content firewall (cluster )?listening/.test(line)) {
              signalled = true;
              group(child, 'SIGINT');
            }
          },
          { npm: true, env: { WORKER_THREADS: '0' } },
        );
        expect(await exited).toEqual({ code: 0, signal: null });
        expect(signalled).toBe(true);
        expect(lines.filter((l) => l.includes('exiting now'))).toEqual([]);
        expect(lines.some((l) => l.includes('embedded PostgreSQL stopped'))).toBe(true);
        expect(existsSync(pidFile(dir))).toBe(false);
        expect(postmastersOf(dir)).toEqual([]);
      },
    );
  }

  it(
    'SIGINT to the group while starting: start-up finishes, then stops; exit 0, the cluster stopped',
    { timeout: 90_000 },
    async () => {
      const dir = dataDir();
      let signalled = false;
      const { exited } = startServer(
        dir,
        0,
        [],
        (line, child) => {
          if (!signalled && line.includes('embedded PostgreSQL started')) {
            signalled = true;
            group(child, 'SIGINT');
          }
        },
        { npm: true, env: { WORKER_THREADS: '0' } },
      );
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(existsSync(pidFile(dir))).toBe(false);
      expect(postmastersOf(dir)).toEqual([]);
    },
  );

  it(
    "an operator's real second signal (after the duplicate window) forces the exit, and still stops the cluster",
    { timeout: 90_000 },
    async () => {
      const dir = dataDir();
      const lines: string[] = [];
      let listening!: () => void;
      const ready = new Promise<void>((r) => (listening = r));
      let port = 0;
      const { child, exited } = startServer(
        dir,
        0,
        [],
        (line) => {
          lines.push(line);
          const m = /"port":(\d+).*content firewall listening/.exec(line);
          if (m) {
            port = Number(m[1]);
            listening();
          }
        },
        { npm: true, env: { WORKER_THREADS: '0', SHUTDOWN_TIMEOUT_MS: '60000' } },
      );
      await ready;
      // A request that keeps the drain waiting: headers sent, body never finished.
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.on('error', () => undefined);
      socket.write(
        'POST /v1/scans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
      await new Promise((r) => setTimeout(r, 200));
      group(child, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(child.exitCode).toBeNull();
      group(child, 'SIGTERM');
      const result = await exited;
      socket.destroy();
      expect(result.code).toBe(1);
      expect(lines.filter((l) => l.includes('exiting now')).length).toBe(1);
      expect(existsSync(pidFile(dir))).toBe(false);
      expect(postmastersOf(dir)).toEqual([]);
    },
  );
});

/** An admin key of a new organization, through the CLI (which stops the cluster it started). */
function bootstrapKey(dir: string): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'bootstrap', '--org', 'Ctrl-C', '--json'], {
    cwd: ROOT,
    env: serverEnv(dir),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`bootstrap failed: ${r.stderr}`);
  return JSON.parse(r.stdout).api_key.secret as string;
}

/** `words` words no two windows of which are alike, so no window cache spares the models any work. */
function variedText(words: number, seed: number): string {
  const vocabulary = ['report', 'garden', 'revenue', 'Paris', 'meeting', 'invoice', 'weather', 'budget', 'river'];
  let x = seed;
  const next = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648);
  return Array.from({ length: words }, () => `${vocabulary[next() % vocabulary.length]}${next() % 100}`).join(' ');
}

describe('a second Ctrl-C while the model threads run long accurate scans', () => {
  it(
    'exits 1 once the running inference tasks have finished — not SIGABRT — and stops the embedded PostgreSQL',
    { timeout: 240_000 },
    async () => {
      const dir = dataDir();
      const key = bootstrapKey(dir);
      const lines: string[] = [];
      let port = 0;
      let listening!: () => void;
      const ready = new Promise<void>((r) => (listening = r));
      const { child, exited } = startServer(
        dir,
        0,
        [],
        (line) => {
          lines.push(line);
          const m = /"port":(\d+).*content firewall listening/.exec(line);
          if (m) {
            port = Number(m[1]);
            listening();
          }
        },
        { npm: true, env: { WORKER_THREADS: '2', SCAN_DEADLINE_MS: '300000', SHUTDOWN_TIMEOUT_MS: '300000' } },
      );
      await ready;
      // Over 1 million characters at the accurate tier, ~12 s of inference for two threads on the 2-core
      // machine (the pool cuts it into short slices): still running at the second signal.
      const scans = Array.from({ length: 4 }, (_, i) =>
        fetch(`http://127.0.0.1:${port}/v1/scans`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text: variedText(30_000, i + 1) },
            options: { tier: 'accurate' },
          }),
        }).then(
          (r) => r.status,
          () => 0,
        ),
      );
      const inFlight = async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return Number(/^cf_pool_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
      };
      while ((await inFlight()) === 0) await new Promise((r) => setTimeout(r, 50));
      group(child, 'SIGINT');
      while (!lines.some((l) => l.includes('shutting down'))) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, DUPLICATE_SIGNAL_MS + 500));
      expect(child.exitCode).toBeNull();
      group(child, 'SIGINT');
      expect(await exited).toEqual({ code: 1, signal: null });
      await Promise.all(scans);
      expect(lines.filter((l) => l.includes('exiting now')).length).toBe(1);
      // The case this is about: inference was running on the model threads when the exit was forced.
      expect(lines.some((l) => /"running":[1-9].*inference tasks that were running have finished/.test(l))).toBe(true);
      expect(lines.filter((l) => l.includes('terminate called'))).toEqual([]);
      expect(existsSync(pidFile(dir))).toBe(false);
      expect(postmastersOf(dir)).toEqual([]);
    },
  );
});
