import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort, start, stop } from '../../benchmarks/processes.ts';
import { startChildService } from '../support/child-service.ts';
import { buildOrg, call, expectProblem, startTestApp, type TestApp } from '../support/harness.ts';
import { ThrowawayPostgres } from '../support/pg-cluster.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';
import { budgetMs, cases } from './profile.ts';

/**
 * PostgreSQL restarted (`pg_ctl stop -m fast` terminates every connection with 57P01) and killed
 * (SIGKILL of the postmaster), on a cluster of the test's own: the service stays up, answers 503
 * `service.database_unavailable` (and /readyz 503) while the database is away, and recovers by
 * itself once it is back: no restart, no acknowledged scan lost, jobs and webhook deliveries resume.
 */

let pg: ThrowawayPostgres;

beforeAll(async () => {
  pg = await ThrowawayPostgres.create();
}, 120_000);
afterAll(async () => pg?.destroy());

const until = async (what: () => Promise<boolean>, ms: number): Promise<number> => {
  const started = Date.now();
  while (!(await what().catch(() => false))) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
};

const scanBody = (text: string) => ({
  kind: 'content',
  surface: 'user_message',
  content: { type: 'text', text },
  options: { tier: 'fast' },
});

describe('PostgreSQL goes away and comes back', () => {
  let app: TestApp;
  let receiver: Receiver;

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it(
    'an idle service with jobs and the webhook pump: survives a fast restart, 503 while away, recovers',
    { timeout: budgetMs(90_000, 90_000) },
    async () => {
      receiver = await startReceiver();
      app = await startTestApp({
        jobs: true,
        env: {
          DATABASE_URL: pg.url,
          WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
          WEBHOOK_CA_FILE: TEST_CA_FILE,
          WEBHOOK_POLL_MS: '100',
        },
      });
      const org = await buildOrg(app);
      const hook = await call(app, 'POST', '/v1/webhooks', {
        key: org.admin,
        json: { url: receiver.url, events: ['scan.allowed'] },
      });
      expect(hook.status).toBe(201);
      expect((await call(app, 'POST', '/v1/scans', { key: org.admin, json: scanBody('hello before') })).status).toBe(
        201,
      );
      await receiver.waitFor(1);

      // Idle: the pool's connections and Agenda's LISTEN connection are open; a fast stop terminates them all.
      await pg.stop();
      expectProblem(await call(app, 'GET', '/readyz'), 503, 'service.not_ready');
      for (const [method, path, json] of [
        ['GET', '/v1/scans?limit=1', undefined],
        ['POST', '/v1/scans', scanBody('hello while away')],
        ['GET', '/v1/api-keys', undefined],
      ] as const) {
        const r = await call(app, method, path, { key: org.admin, json });
        expectProblem(r, 503, 'service.database_unavailable');
        expect(r.headers.get('retry-after')).toBe('2');
      }

      await pg.start();
      const recoveredMs = await until(async () => (await call(app, 'GET', '/readyz')).status === 200, 15_000);
      expect(recoveredMs).toBeLessThan(15_000);
      const after = await call(app, 'POST', '/v1/scans', { key: org.admin, json: scanBody('hello after') });
      expect(after.status).toBe(201);
      // The pump delivers the new event; the scheduler still runs jobs on the reconnected pool.
      await receiver.waitFor(2);
      expect(receiver.received.map((d) => JSON.parse(d.body).data.scan_id)).toContain(after.body.id);
      await app.jobs!.runNow('cleanup-idempotency-keys');
    },
  );
});

describe('a server process under load while PostgreSQL restarts, then crashes', () => {
  let child: ChildProcess | null = null;
  let minter: TestApp;

  afterAll(async () => {
    child?.kill('SIGKILL');
    await minter?.close();
  });

  it(
    'stays up, answers 201 or 503 (never 500), recovers by itself, and every acknowledged scan is stored',
    { timeout: budgetMs(120_000, 240_000) },
    async () => {
      // The organization and key, minted on the same database with the same master secret as the server.
      minter = await startTestApp({ env: { DATABASE_URL: pg.url, WEBHOOK_DELIVERY_ENABLED: 'false' } });
      const org = await buildOrg(minter);
      // Jobs off: the crash this guards against (an error on a client checked out inside a transaction) needs no scheduler.
      const service = await startChildService(pg.url, {
        WEBHOOK_DELIVERY_ENABLED: undefined,
        RATE_LIMIT_REQUESTS: '10000000',
      });
      child = service.child;
      const port = service.port;
      const output: string[] = [];
      child!.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
      child!.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      let alive = true;
      void exited.then(() => (alive = false));
      const base = `http://127.0.0.1:${port}`;

      const acknowledged: string[] = [];
      const statuses = new Map<string, number>();
      let running = true;
      let n = 0;
      const loop = async () => {
        while (running && alive) {
          const res = await fetch(`${base}/v1/scans`, {
            method: 'POST',
            headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
            body: JSON.stringify(scanBody(`load ${n++} under a restart`)),
          }).catch(() => null);
          if (!res) continue;
          const body = await res.json();
          const tag = res.status === 201 ? '201' : `${res.status} ${body.code}`;
          statuses.set(tag, (statuses.get(tag) ?? 0) + 1);
          if (res.status === 201) acknowledged.push(body.id);
          else if (res.status === 503) expect(res.headers.get('retry-after')).toBe('2');
        }
      };
      const loops = Array.from({ length: 8 }, loop);
      const served = async () =>
        (await fetch(`${base}/v1/scans?limit=1`, { headers: { authorization: `Bearer ${org.admin}` } })).status === 200;

      // Each cycle: a fast restart, then a crash (SIGKILL of the postmaster) with an outage of 1.5 s.
      const recovery: { restartMs: number; crashMs: number }[] = [];
      for (let cycle = 0; cycle < cases(1, 5); cycle++) {
        await new Promise((r) => setTimeout(r, 1_000));
        await pg.restart();
        const restartMs = await until(served, 15_000);
        await new Promise((r) => setTimeout(r, 1_000));
        pg.kill();
        await new Promise((r) => setTimeout(r, 1_500));
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(503);
        await pg.start();
        const crashMs = await until(served, 15_000).catch((err: Error) => {
          throw new Error(
            `${err.message} after the crash\nserver:\n${output.join('').slice(-3000)}\npostgres:\n${pg.logTail()}`,
          );
        });
        recovery.push({ restartMs, crashMs });
      }
      await new Promise((r) => setTimeout(r, 1_000));
      running = false;
      await Promise.all(loops);

      expect(alive, 'the server process exited').toBe(true);
      // Only successes and "database unavailable": never a 500.
      expect([...statuses.keys()].sort()).toEqual(['201', '503 service.database_unavailable']);
      const { rows } = await minter.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM scans WHERE org_id = $1 AND id = ANY($2)',
        [org.orgId, acknowledged],
      );
      expect(rows[0]!.n).toBe(acknowledged.length);
      console.info(
        `faults-postgres: ${JSON.stringify(Object.fromEntries(statuses))}; ${acknowledged.length} acknowledged, all stored; served again after each restart / crash (ms): ${JSON.stringify(recovery)}`,
      );
    },
  );
});

describe('the embedded PostgreSQL that the server started dies', () => {
  let dir = '';
  let pidFile = '';
  let child: ChildProcess | null = null;
  // One data directory per try (a retry must not find the previous try's cluster running).
  const dirs: string[] = [];
  const cleanUp = async () => {
    if (child) await stop(child, 20_000);
    child = null;
    for (const d of dirs.splice(0)) {
      try {
        const pf = path.join(d, 'pg', 'postmaster.pid');
        if (existsSync(pf)) process.kill(Number.parseInt(readFileSync(pf, 'utf8'), 10), 'SIGINT');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 500));
      rmSync(d, { recursive: true, force: true });
    }
  };
  afterAll(cleanUp);

  // Each round kills the postmaster at another moment of the supervisor's 2 s cycle (a seeded pause
  // first), so kills land just before, during and just after its checks. Every third round the dead
  // postmaster's pid also goes to another process, as the kernel hands it out again on a busy machine
  // (pid_max is 32768 here, and other test runs took ~1,000 pids a second: every number comes round
  // within a minute): postmaster.pid then names a live process that is not PostgreSQL.
  it(
    'is started again by the server on the same port after every kill, which then serves again; SIGTERM still stops it',
    { timeout: budgetMs(150_000, 300_000) },
    async () => {
      await cleanUp();
      dir = mkdtempSync(path.join(os.tmpdir(), 'cf-faults-embedded-'));
      chmodSync(dir, 0o711);
      dirs.push(dir);
      pidFile = path.join(dir, 'pg', 'postmaster.pid');
      const port = await freePort();
      ({ child } = await start(
        ['server/main.ts'],
        {
          DATA_DIR: dir,
          DATABASE_URL: undefined,
          PORT: String(port),
          HOST: '127.0.0.1',
          WORKER_THREADS: '0',
          // debug: the supervisor's line per check, for the report of a missed restart
          LOG_LEVEL: 'debug',
          METRICS_ENABLED: 'false',
          REDIS_URL: undefined,
          SECRET_KEY: undefined,
          CLUSTER_WORKERS: undefined,
        },
        null,
        port,
      ));
      // The supervisor's lines only: the pool's and the scheduler's reconnect warnings would bury them.
      const supervisor: string[] = [];
      let partial = '';
      const keep = (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop()!;
        supervisor.push(...lines.filter((l) => l.includes('embedded PostgreSQL')));
      };
      child!.stdout!.on('data', keep);
      child!.stderr!.on('data', keep);
      const ready = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
      expect(await ready()).toBe(true);
      const standIn = spawn('sleep', ['600'], { stdio: 'ignore' });
      onTestFinished(() => void standIn.kill('SIGKILL'));
      let seed = 20261127;
      const pause = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % 2_000;
      const recovered: number[] = [];
      for (let round = 0; round < cases(5, 15); round++) {
        await new Promise((r) => setTimeout(r, pause()));
        const killed = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
        const from = supervisor.length;
        process.kill(killed, 'SIGKILL');
        if (round % 3 === 1) {
          const fields = readFileSync(pidFile, 'utf8').split('\n');
          fields[0] = String(standIn.pid);
          writeFileSync(pidFile, fields.join('\n'));
        }
        await until(async () => !(await ready()), 5_000);
        recovered.push(
          await until(ready, 30_000).catch((err: Error) => {
            const pgLog = path.join(dir, 'pg', 'embedded.log');
            throw new Error(
              `round ${round}, postmaster ${killed}: ${err.message}\nsupervisor since the kill:\n${supervisor.slice(from).join('\n')}\nembedded.log:\n${existsSync(pgLog) ? readFileSync(pgLog, 'utf8').slice(-3000) : '(none)'}`,
            );
          }),
        );
        expect(Number.parseInt(readFileSync(pidFile, 'utf8'), 10)).not.toBe(killed);
        // The supervisor's own start has returned (readiness can come first) before the next kill.
        await until(async () => supervisor.slice(from).some((l) => l.includes('embedded PostgreSQL restarted')), 5_000);
      }
      console.info(
        `faults-postgres: embedded postmaster killed ${recovered.length} times; the server restarted it each time and was ready again after ${Math.min(...recovered)}–${Math.max(...recovered)} ms`,
      );
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      child!.kill('SIGTERM');
      expect(await exited).toBe(0);
      child = null;
      expect(existsSync(pidFile)).toBe(false);
    },
  );
});
