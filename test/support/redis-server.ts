/**
 * A throwaway `redis-server` of a test's own, on a free loopback port, that the test can kill, shut
 * down, freeze and start again on the same port. The shared Redis (:6379) is never touched.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '../../benchmarks/processes.ts';

/** Whether a `redis-server` binary is on PATH (the fault suites skip, saying so, when it is not). */
export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Sends one inline command and resolves with the first reply line, or null on no answer within `timeoutMs`. */
function command(port: number, line: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) done(reply.slice(0, reply.indexOf('\r\n')));
    });
    // A refused connection, or the server closing it (SHUTDOWN answers by closing).
    socket.on('error', () => done(reply || null));
    socket.on('close', () => done(reply || null));
  });
}

export class RedisServer {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** A new server on a free port, answering PING. */
  static async create(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.start();
    return server;
  }

  /** Starts the server (again) on its port, with no persistence; resolves once it answers PING. */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while ((await command(this.port, 'PING', 500)) !== '+PONG') {
      if (child.exitCode !== null) throw new Error(`redis-server on :${this.port} exited ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server on :${this.port} did not answer PING`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** SIGKILL: every connection drops at once, nothing is said. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL');
  }

  /** `SHUTDOWN NOSAVE`: Redis closes its clients and exits by itself. */
  async shutdown(): Promise<void> {
    const child = this.child!;
    const exited = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    await command(this.port, 'SHUTDOWN NOSAVE', 2_000);
    await exited;
    this.child = null;
  }

  /** SIGSTOP: the process stays, its sockets stay open, and nothing is answered (a hung server, or a partition). */
  freeze(): void {
    this.child!.kill('SIGSTOP');
  }

  /** SIGCONT after `freeze()`. */
  thaw(): void {
    this.child!.kill('SIGCONT');
  }

  /** Ends the server for good (after a test). */
  async destroy(): Promise<void> {
    if (!this.child) return;
    this.child.kill('SIGCONT');
    await this.signalAndWait('SIGKILL');
  }

  private async signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}
