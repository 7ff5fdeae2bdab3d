import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startChildService } from '../support/child-service.ts';
import { buildOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * The drain on SIGTERM ends keep-alive connections cleanly: idle ones are closed at once, and the
 * response to a request still in flight says `Connection: close`, so no client writes its next
 * request onto a socket that is about to go (ECONNRESET).
 */
let minter: TestApp;
let org: TestOrg;
let child: ChildProcess;
let port: number;

beforeAll(async () => {
  minter = await startTestApp();
  org = await buildOrg(minter);
  ({ child, port } = await startChildService(minter.config.DATABASE_URL, { SHUTDOWN_TIMEOUT_MS: '20000' }));
}, 90_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await minter?.close();
});

/** A raw connection, so the test sees exactly what the server sends and when it closes. */
function connect(): Promise<{ socket: net.Socket; data: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, data: () => text, closed }));
    socket.once('error', reject);
  });
}

const until = async (what: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

it(
  'SIGTERM: idle keep-alive connections are closed first; the in-flight response carries Connection: close and still succeeds',
  { timeout: 60_000 },
  async () => {
    // A keep-alive connection that has had its response and sits idle.
    const idle = await connect();
    idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    await until(() => idle.data().includes('"status":"ok"'));
    expect(idle.data()).toMatch(/connection: keep-alive/i);

    // A request in flight: headers and half of its body sent.
    const body = JSON.stringify({ name: 'drained', scopes: ['scans:read'] });
    const busy = await connect();
    busy.socket.write(
      `POST /v1/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nAuthorization: Bearer ${org.admin}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    // The idle one goes at once, without the client sending anything.
    await idle.closed;

    busy.socket.write(body.slice(10));
    await busy.closed;
    const head = busy.data().split('\r\n\r\n')[0]!;
    expect(head).toMatch(/^HTTP\/1\.1 201/);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exited).toBe(0);
  },
);
