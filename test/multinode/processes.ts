/**
 * The bed's processes: each is described by a `ProcessSpec` (plain data, so the global setup can hand
 * it to the test files), started detached inside its namespace by whichever process asks (the global
 * setup, or a test restarting a node), with its pid in a file and its output appended to a log. Any
 * process can then signal it by the pid file; teardown also kills whatever still runs in each namespace.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive } from './namespaces.ts';

export interface ProcessSpec {
  /** `node1`, `postgres`, `pgbouncer`, `redis`, `haproxy`. */
  name: string;
  /** Its network namespace. */
  ns: string;
  /** Its address on the bed's subnet, and the port it serves. */
  address: string;
  port: number;
  /** The command and its arguments (run as `ip netns exec <ns> ...argv`). */
  argv: string[];
  /** Its whole environment. */
  env: Record<string, string>;
  cwd: string;
  /** Output (stdout and stderr) is appended here, across restarts. */
  log: string;
  pidFile: string;
  /** The signal that stops it gracefully. */
  stopSignal: NodeJS.Signals;
}

/** Starts `spec`'s process (detached, so it outlives a test file's worker); returns its pid. */
export function startProcess(spec: ProcessSpec): number {
  const running = pidOf(spec);
  if (running !== null) throw new Error(`${spec.name} already runs (pid ${running})`);
  const out = openSync(spec.log, 'a');
  try {
    // `ip netns exec` enters the namespace and execs the command: the pid is the command's own.
    const child = spawn('ip', ['netns', 'exec', spec.ns, ...spec.argv], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', out, out],
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`${spec.name}: spawn failed`);
    writeFileSync(spec.pidFile, String(child.pid));
    return child.pid;
  } finally {
    closeSync(out);
  }
}

/** The pid of `spec`'s process when it runs, else null. */
export function pidOf(spec: ProcessSpec): number | null {
  if (!existsSync(spec.pidFile)) return null;
  const pid = Number(readFileSync(spec.pidFile, 'utf8'));
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

/**
 * Sends `signal` (default the spec's graceful one) and waits until the process is gone; after
 * `timeoutMs` it is killed. Resolves at once when it does not run.
 */
export async function stopProcess(spec: ProcessSpec, signal?: NodeJS.Signals, timeoutMs = 15_000): Promise<void> {
  const pid = pidOf(spec);
  if (pid === null) return;
  process.kill(pid, signal ?? spec.stopSignal);
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(25);
  }
  rmSync(spec.pidFile, { force: true });
}

/** Resolves once `address:port` accepts a TCP connection. @throws after `timeoutMs` or when `spec` exited. */
export async function waitForPort(spec: ProcessSpec, timeoutMs = 30_000): Promise<void> {
  await waitUntil(spec, () => canConnect(spec.address, spec.port), timeoutMs, `port ${spec.port}`);
}

/** Polls `check` until it resolves true. @throws after `timeoutMs`, or at once when `spec`'s process exited. */
export async function waitUntil(
  spec: ProcessSpec,
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (pidOf(spec) === null) throw new Error(`${spec.name} exited before ${what} was ready:\n${logTail(spec)}`);
    if (Date.now() > deadline) throw new Error(`${spec.name}: ${what} not ready in ${timeoutMs} ms:\n${logTail(spec)}`);
    await sleep(50);
  }
}

/** The end of `spec`'s log, for an error message. */
export function logTail(spec: ProcessSpec, chars = 2_000): string {
  try {
    return readFileSync(spec.log, 'utf8').slice(-chars);
  } catch {
    return '(no log)';
  }
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
