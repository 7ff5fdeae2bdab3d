/**
 * The process entry point (server/main.ts) with LEGACY_PORT set: the legacy listener opens beside the
 * v1 one on the same services, answers, and is drained and closed with it on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../benchmarks/processes.ts';
import { buildOrg, isolatedDatabase, startTestApp, TEST_MASTER_SECRET, type TestApp } from '../support/harness.ts';
import { collectLogLines, waitForLogLine } from '../support/child-logs.ts';
import { newAnalysis } from './legacy-fixture.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
let child: ChildProcess;
let exit: Promise<number | null>;
let app: TestApp;
const lines: { msg?: string; port?: number; legacy_port?: number }[] = [];

beforeAll(async () => {
  const databaseUrl = await isolatedDatabase();
  app = await startTestApp({ env: { DATABASE_URL: databaseUrl, WEBHOOK_DELIVERY_ENABLED: 'false' } });
  const [port, legacyPort] = [await freePort(), await freePort()];
  child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: TEST_MASTER_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      LEGACY_PORT: String(legacyPort),
      WORKER_THREADS: '0',
      LOG_LEVEL: 'info',
      JOBS_ENABLED: 'false',
      WEBHOOK_DELIVERY_ENABLED: 'false',
    },
  });
  exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  collectLogLines(child, lines);
  await waitForLogLine(lines, 'content firewall listening');
}, 60_000);
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await app?.close();
});

it('serves the legacy API on LEGACY_PORT beside v1, and closes both on SIGTERM', async () => {
  const started = lines.find((l) => l.msg === 'content firewall listening')!;
  expect(started.legacy_port).toBeGreaterThan(0);
  expect(started.legacy_port).not.toBe(started.port);
  const org = await buildOrg(app);
  const id = await newAnalysis(app, org);
  const legacyUrl = `http://127.0.0.1:${started.legacy_port}`;
  const r = await fetch(`${legacyUrl}/v1/analysis/${id}?detections=pii`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'text/plain' },
    body: 'Mail jane.doe@example.com',
  });
  expect(r.status).toBe(200);
  expect(await r.json()).toMatchObject({ analysis: [{ name: 'pii', result: [{ label: 'EMAIL' }] }] });
  // The v1 listener of the same process does not serve it.
  const v1 = await fetch(`http://127.0.0.1:${started.port}/v1/analysis/${id}`, { method: 'POST' });
  expect(v1.status).toBe(404);

  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  await expect(fetch(`${legacyUrl}/v1/analysis/${id}`, { method: 'POST' })).rejects.toThrow();
}, 60_000);
