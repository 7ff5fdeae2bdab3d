import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import {
  buildOrg,
  isolatedDatabase,
  startTestApp,
  TEST_MASTER_SECRET,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { collectLogLines, waitForLogLine } from '../support/child-logs.ts';
import { freePort } from '../../benchmarks/processes.ts';

// `npm start -- --cluster 2`: two processes behind one port, sharing PostgreSQL and Redis.

const ROOT = path.resolve(import.meta.dirname, '..', '..');
let primary: ChildProcess;
let exit: Promise<number | null>;
let port: number;
let app: TestApp;
let org: TestOrg;
const lines: { msg?: string; pid?: number; worker_pid?: number }[] = [];

/** One request on a connection of its own, so node:cluster hands it to the next worker. */
function request(
  method: string,
  p: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: p,
        agent: false,
        headers: { ...headers, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  const databaseUrl = await isolatedDatabase();
  app = await startTestApp({ env: { DATABASE_URL: databaseUrl, WEBHOOK_DELIVERY_ENABLED: 'false' } });
  org = await buildOrg(app);
  port = await freePort();
  // The compiled build, as `npm start -- --cluster 2` runs it: the workers fork the same bundle.
  primary = spawn(process.execPath, ['dist/app/server.mjs', '--cluster', '2'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `cf_test_${randomBytes(4).toString('hex')}:`,
      SECRET_KEY: TEST_MASTER_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKER_THREADS: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_REQUESTS: '12',
      RATE_LIMIT_WINDOW_SECONDS: '600',
      JOBS_ENABLED: 'false',
    },
  });
  exit = new Promise((resolve) => primary.once('exit', (code) => resolve(code)));
  collectLogLines(primary, lines);
  await waitForLogLine(lines, 'content firewall cluster listening');
}, 60_000);
afterAll(async () => {
  if (primary && primary.exitCode === null) primary.kill('SIGKILL');
  await app?.close();
});

it('serves from every process, and rate limits hold across them (Redis)', async () => {
  const replies = [];
  for (let i = 0; i < 20; i++) replies.push(await request('GET', '/v1/me', { authorization: `Bearer ${org.admin}` }));
  expect(replies.filter((r) => r.status === 200)).toHaveLength(12);
  expect(replies.filter((r) => r.status === 429)).toHaveLength(8);
  const served = new Set(lines.filter((l) => l.msg === 'request completed').map((l) => l.pid));
  expect(served.size).toBe(2);
});

it('an Idempotency-Key holds across processes: one key minted, every other attempt replays or waits', async () => {
  // Its own organization: the first one's rate-limit budget is spent.
  const other = await buildOrg(app);
  const headers = { authorization: `Bearer ${other.admin}`, 'idempotency-key': 'cluster-1' };
  const body = { name: 'minted once', scopes: ['scans:read'] };
  const replies = await Promise.all(Array.from({ length: 6 }, () => request('POST', '/v1/api-keys', headers, body)));
  for (const r of replies) expect([201, 409]).toContain(r.status);
  const created = replies.filter((r) => r.status === 201).map((r) => JSON.parse(r.body).id);
  expect(new Set(created).size).toBe(1);
  const again = await request('POST', '/v1/api-keys', headers, body);
  expect(again.status).toBe(201);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(JSON.parse(again.body).id).toBe(created[0]);
  const { rows } = await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND name = $2', [
    other.orgId,
    'minted once',
  ]);
  expect(rows[0].n).toBe(1);
});

it(
  'replaces a worker that dies, and SIGTERM drains every worker before the primary exits',
  { timeout: 60_000 },
  async () => {
    const workers = () => [...new Set(lines.filter((l) => l.msg === 'worker listening').map((l) => l.worker_pid!))];
    const [first] = workers();
    process.kill(first!, 'SIGKILL');
    await expect.poll(() => workers().length, { timeout: 30_000, interval: 100 }).toBe(3);
    expect((await request('GET', '/healthz')).status).toBe(200);

    primary.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(lines.filter((l) => l.msg === 'stopped')).toHaveLength(2);
    expect(lines.some((l) => l.msg === 'cluster stopped')).toBe(true);
    for (const pid of workers()) expect(() => process.kill(pid, 0)).toThrow();
  },
);
