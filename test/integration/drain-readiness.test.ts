import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startChildService } from '../support/child-service.ts';
import { buildOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * A graceful stop behind a load balancer (SHUTDOWN_READINESS_DELAY_MS): on SIGTERM `/readyz` answers
 * 503 at once, so the balancer's health checks take the node out, while the node still accepts and
 * serves new connections for the delay; only then does it stop accepting, drain and exit 0.
 */
let minter: TestApp;
let org: TestOrg;
let child: ChildProcess;
let port: number;
// Long enough that the requests below land inside it even on a loaded machine; the test waits it out once.
const DELAY_MS = 6_000;

beforeAll(async () => {
  minter = await startTestApp();
  org = await buildOrg(minter);
  ({ child, port } = await startChildService(minter.config.DATABASE_URL, {
    SHUTDOWN_READINESS_DELAY_MS: String(DELAY_MS),
    SHUTDOWN_TIMEOUT_MS: '20000',
  }));
}, 90_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await minter?.close();
});

const base = () => `http://127.0.0.1:${port}`;

it(
  'SIGTERM: /readyz answers 503 service.not_ready at once while new requests are still served; then the process drains and exits 0',
  { timeout: 60_000 },
  async () => {
    const before = await fetch(`${base()}/readyz`);
    expect(before.status).toBe(200);

    let exitedAt: number | null = null;
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => {
        exitedAt = Date.now();
        resolve(code);
      }),
    );
    child.kill('SIGTERM');

    // Not ready from the first check on (the signal is handled before the next turn of the event loop
    // that answers a request: poll until the answer flips, which it must long before the delay ends).
    let ready: Response;
    for (;;) {
      ready = await fetch(`${base()}/readyz`, { headers: { connection: 'close' } });
      if (ready.status !== 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await ready.json()) as { code: string }).code).toBe('service.not_ready');
    // Liveness stays up: the process is healthy, only leaving.
    expect((await fetch(`${base()}/healthz`, { headers: { connection: 'close' } })).status).toBe(200);

    // A new connection with real work on it is still served, and keep-alive is not cut short yet.
    const created = await fetch(`${base()}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ name: 'during-readiness-delay', scopes: ['scans:read'] }),
    });
    expect(created.status).toBe(201);
    const servedAt = Date.now();
    expect(exitedAt).toBeNull();

    // After the delay: the listener closes (connections refused) and the process exits 0.
    expect(await exited).toBe(0);
    expect(exitedAt).not.toBeNull();
    expect(exitedAt! >= servedAt).toBe(true);
    await expect(fetch(`${base()}/healthz`)).rejects.toThrow();
  },
);
