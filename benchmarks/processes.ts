/** Child processes and autocannon runs shared by the HTTP benchmarks. */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a tsx child; ready when `ready` matches its output (group 1: the port), or when `port` answers /healthz. */
export function start(cmd: string[], env: Record<string, string>, ready: RegExp | null, port?: number): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...cmd], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
      { url, method: 'POST', connections: o.connections, duration: o.seconds, headers: { 'content-type': 'application/json', ...o.headers }, requests: requests.map((body) => ({ body })) },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (o.progress) autocannon.track(instance, { renderProgressBar: true, renderResultsTable: false, renderLatencyTable: false });
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
