/**
 * Faults across nodes (issue 40, item 4), under a bounded load through the balancer:
 *
 * - kill -9 of a node mid-load: every acknowledged scan is stored; the clients see only answers our
 *   documented retry policy retries (docs/client.md); once the balancer has marked the node down nothing
 *   fails but the retry of a request the dead node was running, whose Idempotency-Key claim answers 409
 *   request_in_progress until the dead node's lease lapses; how long marking it down took is measured
 *   against checkIntervalMs × fall;
 * - a node frozen (SIGSTOP) until the balancer has marked it down, then resumed: nothing fails but a scan
 *   the node held mid-inference through the freeze, which answers 504 `scans.deadline_exceeded`;
 * - a rolling restart of every node (SIGTERM, one at a time): zero failed calls for clients that
 *   retry per the policy;
 * - a PgBouncer restart and a Redis restart: what clients see and how fast service comes back.
 *
 * The clients are this repository's client package with its default retry policy; a `fetch` wrapper
 * records every attempt, so the suite sees what a client without retries would have got too. The
 * numbers go to docs/reliability.md (Faults across nodes); they are printed, never asserted on.
 */
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.ts';
import { CLAIM_LEASE_MS } from '../../services/idempotency.ts';
import { TOPOLOGY } from '../../deploy/topology.ts';
import { useBed, type Bed, type BedService } from './bed.ts';
import { Load } from './load.ts';
import { pidOf } from './processes.ts';

const WORKERS = 4;
// Each client about 30 calls/s at most: under the bed's per-key budget (60/s), and the 3 nodes with a
// model thread each share 2 cores.
const PAUSE_MS = 25;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A scan's own 504 when its model inference did not finish within SCAN_DEADLINE_MS. */
const DEADLINE = 'scans.deadline_exceeded';

/** How long HAProxy may take to notice a node that stopped answering its checks: interval × fall. */
const DETECTION_BOUND_MS = TOPOLOGY.balancer.checkIntervalMs * TOPOLOGY.balancer.fall;

/** Waits until `check` resolves true, polling every `everyMs`. @throws after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** HAProxy's state of node `i` (`UP`, `DOWN`, `UP 1/2`, ...). */
async function nodeState(bed: Bed, i: number): Promise<string> {
  return (await bed.serverStats()).get(bed.nodes[i]!.name)?.status ?? '?';
}

/** SIGKILL of a part of the bed (every connection to it drops at once), and its start `downMs` later. */
async function crashAndStart(bed: Bed, service: BedService, downMs: number): Promise<void> {
  await bed.stop(service, 'SIGKILL');
  await sleep(downMs);
  await bed.start(service);
}

describe('faults across nodes', () => {
  const bed = useBed();
  let orgId: string;
  /** One API key per client: the bed's per-key budget (BED_RATE_LIMIT) is not what is under test here. */
  let keys: string[];
  let db: pg.Client;
  const report: Record<string, unknown> = {};

  beforeAll(async () => {
    orgId = bed.description.org.id;
    const admin = createClient({ baseUrl: bed.balancerUrl, apiKey: bed.adminKey });
    keys = [];
    for (let w = 0; w < WORKERS; w++) {
      const created = await admin.apiKeys.create({ name: `faults ${w}`, scopes: ['scans:read', 'scans:write'] });
      keys.push(created.secret!);
    }
    db = new pg.Client(bed.description.databaseUrl);
    await db.connect();
  });

  afterAll(async () => {
    // The numbers docs/reliability.md quotes.
    console.log(`faults across nodes: ${JSON.stringify(report, null, 2)}`);
    await db?.end();
    await bed.close();
  });

  /** A steady load of WORKERS clients through the balancer. */
  const startLoad = () => {
    const load = new Load(bed.balancerUrl, keys);
    load.start(PAUSE_MS);
    return load;
  };

  /**
   * What a failed check prints (built once per test, after its load stopped): the load's failed attempts,
   * then the lines of each node's log about an answer that was not a success, and HAProxy's (its `httplog`
   * lines carry the session's termination state).
   */
  const why = (load: Load) => {
    const failed = load.attempts
      .filter((a) => a.code !== null)
      .map((a) => `${new Date(a.at).toISOString()} +${a.endedAt - a.at} ms: ${a.status} ${a.code}`);
    const lines = (name: string, keep: RegExp) =>
      bed
        .logTail(name, 500_000)
        .split('\n')
        .filter((line) => keep.test(line))
        .slice(-10)
        .join('\n');
    return [
      `failed attempts (${failed.length}, the last 20):`,
      ...failed.slice(-20),
      ...bed.nodes.map((n) => `${n.name}:\n${lines(n.name, /"status":[45]\d\d|"level":[56]0/)}`),
      `haproxy:\n${lines(bed.description.haproxy.name, / [45]\d\d /)}`,
    ].join('\n');
  };

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
    'kill -9 of a node mid-load: acknowledged scans are stored, clients see only retryable errors, and once the balancer has marked it down only the dead claims until their lease lapses',
    { timeout: 120_000 },
    async () => {
      const load = startLoad();
      await sleep(3_000);
      const killedAt = Date.now();
      await bed.killNode(1);
      await until('node2 DOWN at the balancer', async () => !(await nodeState(bed, 1)).startsWith('UP'), 30_000, 10);
      const downAt = Date.now();
      await sleep(4_000);
      const restartAt = Date.now();
      await bed.startNode(1);
      await until('node2 UP at the balancer', async () => (await nodeState(bed, 1)) === 'UP', 30_000, 20);
      const upAt = Date.now();
      await sleep(2_000);
      await load.stop();
      const reason = why(load);

      const whole = load.summary(0);
      const afterDown = load.summary(downAt + 100);
      const stored = await expectAcknowledgedStored(load);
      report.kill9 = {
        detectionMs: downAt - killedAt,
        detectionBoundMs: DETECTION_BOUND_MS,
        backUpMsAfterReady: upAt - restartAt,
        acknowledgedScansStored: stored,
        ...whole,
        failedAttemptsAfterMarkedDown: afterDown.failedAttempts,
      };
      // Whatever a client saw, the documented policy retries it.
      expect(whole.notRetryable, reason).toBe(0);
      // Once the balancer has routed around the dead node, nothing fails but the retry of a request that
      // was running on it: its Idempotency-Key claim answers 409 request_in_progress until the dead
      // node's lease lapses (CLAIM_LEASE_MS after its last renewal), and then the retry runs.
      const { '409 idempotency.request_in_progress': claimsHeld = 0, ...otherFailures } = afterDown.byCode;
      expect(otherFailures, reason).toEqual({});
      const lastClaimHeld = Math.max(
        killedAt,
        ...load.attempts.filter((a) => a.at >= downAt + 100 && a.status === 409).map((a) => a.at),
      );
      expect(lastClaimHeld - killedAt, `${claimsHeld} claims held`).toBeLessThanOrEqual(CLAIM_LEASE_MS + 1_000);
      expect(whole.failures, reason).toEqual([]);
    },
  );

  it(
    'a node that stops answering without a reset (SIGSTOP, like a lost host): taken out by the checks; no call fails but a scan it held mid-inference past its deadline, the ones it held wait until it resumes',
    { timeout: 240_000 },
    async () => {
      const load = startLoad();
      await sleep(3_000);
      const pid = pidOf(bed.description.nodes[2]!)!;
      const frozenAt = Date.now();
      process.kill(pid, 'SIGSTOP');
      try {
        await until('node3 DOWN at the balancer', async () => !(await nodeState(bed, 2)).startsWith('UP'), 30_000, 10);
      } catch (err) {
        // The node runs again whatever happens: the next tests need it.
        process.kill(pid, 'SIGCONT');
        throw err;
      }
      const downAt = Date.now();
      await sleep(3_000);
      process.kill(pid, 'SIGCONT');
      const resumedAt = Date.now();
      await until('node3 UP at the balancer', async () => (await nodeState(bed, 2)) === 'UP', 30_000, 20);
      const upAt = Date.now();
      await sleep(1_000);
      // Waits for the calls that were held by the frozen node, however long they took.
      await load.stop();
      const reason = why(load);
      const whole = load.summary(0);
      const afterDown = load.summary(downAt + 100);
      const stored = await expectAcknowledgedStored(load);
      const lateAttempts = load.attempts.filter((a) => a.status === 504 && a.code === DEADLINE);
      report.frozen = {
        detectionMs: downAt - frozenAt,
        // interval × fall, each failed check waiting up to its timeout (timeout check = connect timeout)
        detectionBoundMs:
          (TOPOLOGY.balancer.checkIntervalMs + TOPOLOGY.balancer.timeouts.connectMs) * TOPOLOGY.balancer.fall,
        upMsAfterResume: upAt - resumedAt,
        acknowledgedScansStored: stored,
        callsOver10s: load.calls.filter((c) => c.ms > 10_000).length,
        ...whole,
        failedAttemptsAfterMarkedDown: afterDown.failedAttempts,
        deadlineAnswers: lateAttempts.length,
      };
      // A scan that was waiting for its model thread when the node froze answers, on resuming, 504
      // `scans.deadline_exceeded`: the freeze (detection + 3 s) outlasts SCAN_DEADLINE_MS (5 s), and the
      // deadline's timer runs before the model thread's reply. An answer, not a lost request (the client
      // does not retry it), and only ever for a request the frozen node held through the freeze.
      const lateCalls = load.calls.filter((c) => c.error === `504 ${DEADLINE}`);
      const heldThrough = (from: number, to: number) => from < downAt && to >= resumedAt;
      expect(
        lateAttempts.filter((a) => !heldThrough(a.at, a.endedAt)),
        reason,
      ).toEqual([]);
      expect(
        lateCalls.filter((c) => !heldThrough(c.at, c.at + c.ms)),
        reason,
      ).toEqual([]);
      expect(lateCalls.length).toBe(lateAttempts.length);
      expect(whole.notRetryable - lateAttempts.length, reason).toBe(0);
      expect(
        whole.failures.filter((f) => f !== `504 ${DEADLINE}`),
        reason,
      ).toEqual([]);
    },
  );

  it(
    'a rolling restart of every node (SIGTERM, one at a time) fails no call of a client that retries per the documented policy',
    { timeout: 240_000 },
    async () => {
      const load = startLoad();
      await sleep(2_000);
      const started = Date.now();
      const perNode: { drainMs: number; readyMs: number; upMs: number }[] = [];
      for (let i = 0; i < bed.nodes.length; i++) {
        const t0 = Date.now();
        await bed.stopNode(i);
        const t1 = Date.now();
        await bed.startNode(i);
        const t2 = Date.now();
        await until(`node${i + 1} UP at the balancer`, async () => (await nodeState(bed, i)) === 'UP', 30_000, 20);
        perNode.push({ drainMs: t1 - t0, readyMs: t2 - t1, upMs: Date.now() - t2 });
      }
      const ended = Date.now();
      await sleep(1_000);
      await load.stop();
      const reason = why(load);
      const during = load.summary(started, ended);
      const stored = await expectAcknowledgedStored(load);
      report.rollingRestart = { totalMs: ended - started, perNode, acknowledgedScansStored: stored, ...during };
      expect(during.notRetryable, reason).toBe(0);
      expect(during.failures, reason).toEqual([]);
      expect(load.summary(0).failures).toEqual([]);
    },
  );

  it(
    'a PgBouncer restart (kill -9, 1 s down): clients see only retryable answers and no call fails; service resumes by itself',
    { timeout: 120_000 },
    async () => {
      const load = startLoad();
      await sleep(2_000);
      const downAt = Date.now();
      await crashAndStart(bed, 'pgbouncer', 1_000);
      const backAt = Date.now();
      // The first attempt that succeeds after PgBouncer is back.
      await until('a scan succeeds after PgBouncer is back', async () =>
        load.attempts.some((a) => a.at >= backAt && a.code === null),
      );
      const firstOk = load.attempts.find((a) => a.at >= backAt && a.code === null)!.at;
      await sleep(3_000);
      await load.stop();
      const reason = why(load);
      const whole = load.summary(0);
      const stored = await expectAcknowledgedStored(load);
      report.pgbouncerRestart = {
        downMs: backAt - downAt,
        firstSuccessMsAfterBack: firstOk - backAt,
        acknowledgedScansStored: stored,
        ...whole,
      };
      expect(whole.notRetryable, reason).toBe(0);
      expect(whole.failures, reason).toEqual([]);
    },
  );

  it(
    'a Redis restart (kill -9, 1 s down): scans go on; the nodes reconnect by themselves',
    { timeout: 120_000 },
    async () => {
      const load = startLoad();
      await sleep(2_000);
      // The nodes' connections to Redis (commands and the invalidation subscribers), before the fault.
      const connections = async () => {
        const redis = new Redis(bed.description.redisUrl, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        try {
          await redis.connect();
          const info = await redis.info('clients');
          return Number(/connected_clients:(\d+)/.exec(info)![1]) - 1;
        } finally {
          redis.disconnect();
        }
      };
      const before = await connections();
      const downAt = Date.now();
      await crashAndStart(bed, 'redis', 1_000);
      const backAt = Date.now();
      // Shared counters and pushed invalidations again: every node has reconnected.
      await until('the nodes reconnect to Redis', async () => (await connections()) >= before, 30_000, 20);
      const sharedAgainMs = Date.now() - backAt;
      await sleep(2_000);
      await load.stop();
      const reason = why(load);
      const whole = load.summary(0);
      const stored = await expectAcknowledgedStored(load);
      report.redisRestart = {
        downMs: backAt - downAt,
        nodesReconnectedMsAfterBack: sharedAgainMs,
        acknowledgedScansStored: stored,
        ...whole,
      };
      expect(whole.notRetryable, reason).toBe(0);
      expect(whole.failures, reason).toEqual([]);
    },
  );
});
