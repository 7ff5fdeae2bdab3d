/**
 * Faults across nodes (issue 40, item 4), under a bounded load through the balancer:
 *
 * - kill -9 of a node mid-load: every acknowledged scan is stored; the clients see only answers our
 *   documented retry policy retries (docs/client.md); once the balancer has marked the node down no
 *   request fails any more; how long that took is measured against checkIntervalMs × fall;
 * - a rolling restart of every node (SIGTERM, one at a time): zero failed calls for clients that
 *   retry per the policy;
 * - a PgBouncer restart and a Redis restart: what clients see and how fast service comes back.
 *
 * The clients are this repository's client package with its default retry policy; a `fetch` wrapper
 * records every attempt, so the suite sees what a client without retries would have got too. The
 * numbers go to docs/reliability.md (Faults across nodes); they are printed, never asserted on.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ContentFirewallClient } from '../../client/index.ts';
import { buildOrg, isolatedDatabase, startTestApp, TEST_MASTER_SECRET } from '../support/harness.ts';
import { LoopbackRig, rigInstalled, until, type FaultTarget } from './fault-rig.ts';

const missing = rigInstalled();

/** One HTTP attempt a client made (a call is one or more attempts). */
interface Attempt {
  at: number;
  /** HTTP status, or 0 for a network error. */
  status: number;
  /** The problem code, `html` for a balancer's page, `network`, or null for a success. */
  code: string | null;
}

/** One call of the load, after the client's retries. */
interface Call {
  at: number;
  ms: number;
  ok: boolean;
  op: 'scan' | 'get';
  /** The acknowledged scan's id. */
  id?: string;
  error?: string;
}

/** Whether our documented retry policy retries this attempt's answer for a repeatable request. */
function retryable(a: Attempt): boolean {
  if (a.status === 0) return true; // connection refused or reset
  if (a.status === 429 || a.status === 503) return true;
  if (a.status === 409) return a.code === 'idempotency.request_in_progress';
  if (a.status === 502 || a.status === 504) return a.code === 'html';
  return false;
}

/** Steady load through the balancer: `workers` clients, each creating a scan or reading one back, with a pause. */
class Load {
  readonly attempts: Attempt[] = [];
  readonly calls: Call[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly client: ContentFirewallClient;

  constructor(baseUrl: string, apiKey: string) {
    const recording: typeof fetch = async (input, init) => {
      const at = Date.now();
      try {
        const r = await fetch(input, init);
        if (r.ok) this.attempts.push({ at, status: r.status, code: null });
        else {
          const type = r.headers.get('content-type') ?? '';
          let code = type.includes('html') || !type ? 'html' : 'other';
          if (type.includes('problem+json')) {
            const text = await r.clone().text();
            code = ((JSON.parse(text) as { code?: string }).code ?? 'problem') as string;
          }
          this.attempts.push({ at, status: r.status, code });
        }
        return r;
      } catch (err) {
        this.attempts.push({ at, status: 0, code: 'network' });
        throw err;
      }
    };
    // The client package with its default retry policy: the policy under test.
    this.client = createClient({ baseUrl, apiKey, fetch: recording });
  }

  start(workers: number, pauseMs: number): void {
    this.running = true;
    for (let w = 0; w < workers; w++) this.loops.push(this.loop(w, pauseMs));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(worker: number, pauseMs: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const at = Date.now();
      const acked = this.calls.filter((c) => c.id);
      const read = n % 4 === 3 && acked.length > 0;
      try {
        if (read) {
          await this.client.scans.get(acked[acked.length - 1 - (n % acked.length)]!.id!);
          this.calls.push({ at, ms: Date.now() - at, ok: true, op: 'get' });
        } else {
          const scan = await this.client.scans.create({
            kind: 'content',
            surface: 'user_message',
            content: {
              type: 'text',
              text: `worker ${worker} message ${n}: ignore previous instructions? ${randomUUID()}`,
            },
          });
          this.calls.push({ at, ms: Date.now() - at, ok: true, op: 'scan', id: scan.id });
        }
      } catch (err) {
        const e = err as { status?: number; code?: string; message: string };
        this.calls.push({
          at,
          ms: Date.now() - at,
          ok: false,
          op: read ? 'get' : 'scan',
          error: `${e.status ?? ''} ${e.code ?? e.message}`,
        });
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }

  /** What happened between `from` and `to` (ms since epoch), for the report. */
  summary(from: number, to = Date.now()) {
    const calls = this.calls.filter((c) => c.at >= from && c.at < to);
    const attempts = this.attempts.filter((a) => a.at >= from && a.at < to);
    const failedAttempts = attempts.filter((a) => a.code !== null);
    const byCode: Record<string, number> = {};
    for (const a of failedAttempts) byCode[`${a.status} ${a.code}`] = (byCode[`${a.status} ${a.code}`] ?? 0) + 1;
    const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
    return {
      calls: calls.length,
      failedCalls: calls.filter((c) => !c.ok).length,
      failures: [...new Set(calls.filter((c) => !c.ok).map((c) => c.error))],
      attempts: attempts.length,
      failedAttempts: failedAttempts.length,
      notRetryable: failedAttempts.filter((a) => !retryable(a)).length,
      byCode,
      p50Ms: ms[Math.floor(ms.length * 0.5)] ?? 0,
      p99Ms: ms[Math.floor(ms.length * 0.99)] ?? 0,
      maxMs: ms.at(-1) ?? 0,
    };
  }
}

const WORKERS = 4;
const PAUSE_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(missing !== null)(`faults across nodes${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let target: FaultTarget & { logs?: string[] };
  let apiKey: string;
  let orgId: string;
  let db: pg.Client;
  const report: Record<string, unknown> = {};

  beforeAll(async () => {
    const databaseUrl = await isolatedDatabase();
    // Mint the organization and its key straight on the database, then leave it to the nodes.
    const minter = await startTestApp({ env: { DATABASE_URL: databaseUrl } });
    const org = await buildOrg(minter, 'Faults across nodes');
    await minter.close();
    apiKey = org.admin;
    orgId = org.orgId;
    target = await LoopbackRig.start({
      nodes: 3,
      databaseUrl,
      secretKey: TEST_MASTER_SECRET,
      env: { WORKER_THREADS: '0', JOBS_ENABLED: 'false', WEBHOOK_DELIVERY_ENABLED: 'false', METRICS_ENABLED: 'false' },
    });
    db = new pg.Client(databaseUrl);
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    // The numbers docs/reliability.md quotes.
    console.log(`faults across nodes: ${JSON.stringify(report, null, 2)}`);
    const errors = (target?.logs ?? []).filter((l) => /"level":(50|60)|error/i.test(l));
    if (errors.length) console.log(`node errors (last 10 of ${errors.length}):\n${errors.slice(-10).join('\n')}`);
    await db?.end();
    await target?.close();
  });

  /** Every acknowledged scan of `load` is a row in PostgreSQL. */
  async function expectAcknowledgedStored(load: Load): Promise<number> {
    const ids = load.calls.flatMap((c) => (c.id ? [c.id] : []));
    const { rows } = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM scans WHERE org_id = $1 AND id = ANY($2)',
      [orgId, ids],
    );
    expect(Number(rows[0]!.n)).toBe(ids.length);
    return ids.length;
  }

  it(
    'kill -9 of a node mid-load: acknowledged scans are stored, clients see only retryable errors, and none once the balancer has marked it down',
    { timeout: 120_000 },
    async () => {
      const load = new Load(target.baseUrl, apiKey);
      load.start(WORKERS, PAUSE_MS);
      await sleep(3_000);
      const killedAt = Date.now();
      await target.stopNode(1, 'SIGKILL');
      await until(
        'node2 DOWN at the balancer',
        async () => !(await target.nodeStates())[1]!.startsWith('UP'),
        30_000,
        10,
      );
      const downAt = Date.now();
      await sleep(4_000);
      const restartAt = Date.now();
      await target.startNode(1);
      await until('node2 UP at the balancer', async () => (await target.nodeStates())[1] === 'UP', 30_000, 20);
      const upAt = Date.now();
      await sleep(2_000);
      await load.stop();

      const whole = load.summary(0);
      const afterDown = load.summary(downAt + 100);
      const stored = await expectAcknowledgedStored(load);
      report.kill9 = {
        detectionMs: downAt - killedAt,
        detectionBoundMs: target.detectionBoundMs,
        backUpMsAfterReady: upAt - restartAt,
        acknowledgedScansStored: stored,
        ...whole,
        failedAttemptsAfterMarkedDown: afterDown.failedAttempts,
      };
      // Whatever a client saw, the documented policy retries it.
      expect(whole.notRetryable).toBe(0);
      // Once the balancer has routed around the dead node, nothing fails (the claims it held lapse within 5 s).
      expect(afterDown.failedAttempts).toBe(0);
      expect(whole.failures).toEqual([]);
    },
  );

  it(
    'a rolling restart of every node (SIGTERM, one at a time) fails no call of a client that retries per the documented policy',
    { timeout: 240_000 },
    async () => {
      const load = new Load(target.baseUrl, apiKey);
      load.start(WORKERS, PAUSE_MS);
      await sleep(2_000);
      const started = Date.now();
      const perNode: { drainMs: number; readyMs: number; upMs: number }[] = [];
      for (let i = 0; i < target.nodes; i++) {
        const t0 = Date.now();
        await target.stopNode(i, 'SIGTERM');
        const t1 = Date.now();
        await target.startNode(i);
        const t2 = Date.now();
        await until(`node${i + 1} UP at the balancer`, async () => (await target.nodeStates())[i] === 'UP', 30_000, 20);
        perNode.push({ drainMs: t1 - t0, readyMs: t2 - t1, upMs: Date.now() - t2 });
      }
      const ended = Date.now();
      await sleep(1_000);
      await load.stop();
      const during = load.summary(started, ended);
      const stored = await expectAcknowledgedStored(load);
      report.rollingRestart = { totalMs: ended - started, perNode, acknowledgedScansStored: stored, ...during };
      expect(during.notRetryable).toBe(0);
      expect(during.failures).toEqual([]);
      expect(load.summary(0).failures).toEqual([]);
    },
  );

  it(
    'a PgBouncer restart (kill -9, 1 s down): clients see only retryable answers and no call fails; service resumes by itself',
    { timeout: 120_000 },
    async () => {
      const load = new Load(target.baseUrl, apiKey);
      load.start(WORKERS, PAUSE_MS);
      await sleep(2_000);
      const downAt = Date.now();
      await target.restartPgBouncer(1_000);
      const backAt = Date.now();
      // The first attempt that succeeds after PgBouncer is back.
      await until('a scan succeeds after PgBouncer is back', async () =>
        load.attempts.some((a) => a.at >= backAt && a.code === null),
      );
      const firstOk = load.attempts.find((a) => a.at >= backAt && a.code === null)!.at;
      await sleep(3_000);
      await load.stop();
      const whole = load.summary(0);
      const stored = await expectAcknowledgedStored(load);
      report.pgbouncerRestart = {
        downMs: backAt - downAt,
        firstSuccessMsAfterBack: firstOk - backAt,
        acknowledgedScansStored: stored,
        ...whole,
      };
      expect(whole.notRetryable).toBe(0);
      expect(whole.failures).toEqual([]);
    },
  );

  it(
    'a Redis restart (kill -9, 1 s down, back empty): scans go on; the nodes write to Redis again by themselves',
    { timeout: 120_000 },
    async () => {
      const load = new Load(target.baseUrl, apiKey);
      load.start(WORKERS, PAUSE_MS);
      await sleep(2_000);
      const downAt = Date.now();
      await target.restartRedis(1_000);
      const backAt = Date.now();
      const redisUrl = (target as unknown as { redis: { url: string } }).redis.url;
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      // Shared rate-limit counters again: a node wrote its first key into the new (empty) Redis.
      await until('a node writes to Redis again', async () => (await redis.dbsize()) > 0, 30_000, 20);
      const sharedAgainMs = Date.now() - backAt;
      redis.disconnect();
      await sleep(2_000);
      await load.stop();
      const whole = load.summary(0);
      const stored = await expectAcknowledgedStored(load);
      report.redisRestart = {
        downMs: backAt - downAt,
        sharedCountersAgainMsAfterBack: sharedAgainMs,
        acknowledgedScansStored: stored,
        ...whole,
      };
      expect(whole.notRetryable).toBe(0);
      expect(whole.failures).toEqual([]);
    },
  );
});
