import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { TEST_MASTER_SECRET } from '../support/harness.ts';

/**
 * The newcomer's path, for real, on the compiled build: `npm start` with no DATABASE_URL (embedded PostgreSQL under
 * DATA_DIR), the bootstrap CLI against the running server, a key that works on /v1/me, a drain on
 * SIGTERM that loses nothing, then the CLI against the stopped data directory and against DATABASE_URL.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cf-e2e-'));
// As a fresh ./.data would be: traversable, so the cluster lives inside it (mkdtemp makes it 0700).
chmodSync(dataDir, 0o711);
const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
let port = 0;
let server: ChildProcess | null = null;

const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.SECRET_KEY;
  return env;
};

function cli(args: string[], env: NodeJS.ProcessEnv = baseEnv()) {
  const r = spawnSync(process.execPath, ['bin/content-firewall.js', ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  port = await freePort();
  // `npm start` itself, so the SIGTERM below goes to npm, as a process manager's would: the start
  // script execs node, so the signal reaches the server and it drains.
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...baseEnv(), PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  server.stderr!.on('data', (d) => (stderr += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    if (
      (await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      break;
    if (Date.now() > deadline) throw new Error(`server did not become healthy: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 90_000);

afterAll(() => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  // A failed run may leave the cluster up: stop its postmaster before removing its files.
  if (existsSync(pidFile)) {
    try {
      process.kill(Number.parseInt(readFileSync(pidFile, 'utf8'), 10), 'SIGINT');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on the embedded default, then the CLI', () => {
  let secret = '';

  it('keeps the cluster and its port record under DATA_DIR, not on 5432', async () => {
    const state = JSON.parse(readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8'));
    expect(state.port).not.toBe(5432);
    expect(state.clusterDir).toBe(path.join(dataDir, 'pg'));
    expect(readFileSync(pidFile, 'utf8').split('\n')[3]).toBe(String(state.port));
  });

  it('bootstrap against the running server prints the org and a secret once; the key works on /v1/me', async () => {
    const r = cli(['bootstrap', '--org', 'E2E Corp', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.org_id).toMatch(/^org_/);
    expect(out.api_key).toMatchObject({ id: expect.stringMatching(/^ak_/), scopes: ['admin'], prefix: 'sk_live' });
    secret = out.api_key.secret;
    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ org_id: out.org_id, org_display_name: 'E2E Corp', scopes: ['admin'] });
  });

  it('bootstrap refuses a second time, and --force mints another key', () => {
    const again = cli(['bootstrap', '--org', 'E2E Corp']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has 1 active API key.*--force/);
    const forced = cli(['bootstrap', '--org', 'E2E Corp', '--force', '--json']);
    expect(forced.code, forced.stderr).toBe(0);
  });

  it('SIGTERM to npm start drains an in-flight request, commits it, and stops the embedded cluster', async () => {
    const body = JSON.stringify({ name: 'drained', scopes: ['scans:read'] });
    const half = Math.floor(body.length / 2);
    const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/api-keys',
          headers: {
            authorization: `Bearer ${secret}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      setTimeout(() => {
        server!.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(half)), 400);
      }, 200);
    });
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    const r = await reply;
    expect(r.status, r.text).toBe(201);
    expect(await exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('the CLI works on the stopped data directory (and stops the cluster it started)', () => {
    const r = cli(['keys', 'list', '--org', 'E2E Corp', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const names = JSON.parse(r.stdout).data.map((k: { name: string }) => k.name);
    expect(names).toContain('drained');
    expect(existsSync(pidFile)).toBe(false);

    const created = cli([
      'keys',
      'create',
      '--org',
      'e2e-corp',
      '--name',
      'ops',
      '--scopes',
      'scans:read,scans:write',
      '--environment',
      'test',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout).api_key;
    expect(key.secret).toMatch(/^sk_test_/);
    const revoked = cli(['keys', 'revoke', '--org', 'e2e-corp', '--id', key.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const bad = cli(['keys', 'create', '--org', 'e2e-corp', '--name', 'x', '--scopes', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('scopes');
  });

  it('the CLI works with DATABASE_URL', () => {
    // The test database's master secret: it records one (store/secret-check.ts), not this DATA_DIR's.
    const env = { ...baseEnv(), DATABASE_URL: inject('databaseUrl'), SECRET_KEY: TEST_MASTER_SECRET };
    const name = `URL Org ${Date.now()}`;
    const r = cli(['bootstrap', '--org', name, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const list = cli(['keys', 'list', '--org', name, '--json'], env);
    expect(JSON.parse(list.stdout).data).toHaveLength(1);
  });

  it('a bad configuration is refused with every problem listed', () => {
    const r = cli(['orgs', 'list'], { ...baseEnv(), PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PORT');
    expect(r.stderr).toContain('LOG_LEVEL');
  });
});
