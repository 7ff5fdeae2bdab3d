/** Child processes and autocannon runs shared by the HTTP benchmarks. */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, platform, release, totalmem } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

function git(...a: string[]): string | null {
  try {
    return execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export interface MachineInfo {
  cpus: number;
  cpu: string | undefined;
  memory_gib: number;
  platform: string;
  node: string;
  git_commit: string | null;
  git_dirty: boolean;
}

/** The machine and checkout a report was measured on. */
export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    platform: `${platform()} ${release()}`,
    node: process.version,
    git_commit: git('rev-parse', '--short', 'HEAD'),
    git_dirty: Boolean(git('status', '--porcelain')),
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a child: a `.ts` entry through tsx, a compiled one (dist/app/*.mjs) as it is; ready when `ready` matches its output (group 1: the port), or when `port` answers
 * /healthz. `env` adds to this process's environment; an undefined value removes that variable.
 */
export function start(
  cmd: string[],
  env: Record<string, string | undefined>,
  ready: RegExp | null,
  port?: number,
): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
    // the script is the first argument that is not a node flag (--cpu-prof … may come before it)
    const loader = cmd.find((a) => !a.startsWith('-'))?.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = spawn(process.execPath, [...loader, ...cmd], {
      cwd: ROOT,
      env: merged,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    if (port !== undefined) {
      const poll = setInterval(() => {
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok && (clearInterval(poll), resolve({ child, port })),
          () => undefined,
        );
      }, 200);
      child.on('exit', () => clearInterval(poll));
    }
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready?.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${cmd.join(' ')} exited ${code}: ${out.slice(-2000)}`)));
  });
}

/** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`), so a drain or an embedded PostgreSQL stop completes. */
export function stop(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

/**
 * CPU seconds used so far by `pid` and its descendants, every thread included (Linux /proc; null
 * elsewhere). `withReaped`: also the children that exited and were waited for (cutime + cstime of
 * each process in the tree): PostgreSQL's autovacuum workers and closed backends.
 */
export function treeCpuSeconds(pid: number, withReaped = false): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const d of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After "pid (comm) ": state ppid … utime (index 11) stime (12), in clock ticks.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(f[1]);
    ticks.set(Number(d), Number(f[11]) + Number(f[12]) + (withReaped ? Number(f[13]) + Number(f[14]) : 0));
    children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
  }
  let total = 0;
  for (const queue = [pid]; queue.length;) {
    const p = queue.pop()!;
    total += ticks.get(p) ?? 0;
    queue.push(...(children.get(p) ?? []));
  }
  return total / 100; // USER_HZ is 100 on Linux
}

/**
 * Waits until `pid` and its descendants use less than `threshold` of one core over a second (at most
 * `maxMs`): a service answering /healthz may still be loading models in other processes (cluster mode
 * forks its workers at once; each opens the port only when its models are warm, and the others keep
 * loading meanwhile). Returns the milliseconds waited.
 */
export async function waitUntilIdle(pid: number, threshold = 0.1, maxMs = 120_000): Promise<number> {
  const began = Date.now();
  let last = treeCpuSeconds(pid);
  if (last === null) return 0;
  while (Date.now() - began < maxMs) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeCpuSeconds(pid);
    if (now === null || now - last < threshold) break;
    last = now;
  }
  return Date.now() - began;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Draw autocannon's progress bar (stderr). */
  progress?: boolean;
}

/** POSTs the given bodies round-robin for `seconds`. */
export function load(url: string, requests: string[], o: LoadOptions): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: o.connections,
        duration: o.seconds,
        headers: { 'content-type': 'application/json', ...o.headers },
        requests: requests.map((body) => ({ body })),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (o.progress)
      autocannon.track(instance, { renderProgressBar: true, renderResultsTable: false, renderLatencyTable: false });
  });
}

export const summary = (r: autocannon.Result) => ({
  req_per_s: Math.round(r.requests.average),
  p50_ms: r.latency.p50,
  p90_ms: r.latency.p90,
  p99_ms: r.latency.p99,
  max_ms: r.latency.max,
  non_2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
});
