import { afterAll, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../client/webhooks.ts';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { buildOrg, call, isolatedDatabase, startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { WebhookService } from '../support/webhook-service.ts';
import { sleep, until } from './load.ts';
import { budgetMs, cases } from './profile.ts';

/**
 * The service process is SIGKILLed again and again in the middle of a webhook schedule — while it
 * takes scans, while attempts are in flight, and while retries are only pending — and a fresh process
 * on the same database takes over each time. Every event must come out exactly as the schedule says:
 * no delivery row lost, no attempt skipped, attempts numbered without gaps (only an attempt in flight
 * at a kill is made twice), never early, and delivered (once, after the receiver's dedup by
 * Service-Event-Id) or dead-lettered after attempt 7.
 *
 * Time is a manual clock in each service process, moved over IPC, so the 24 h schedule takes
 * seconds. The receiver knows which attempt a request is from the row it waits on: a delivery row
 * records each attempt only after its response, so while a request is at the receiver the row still
 * says the previous one.
 */

const SCANS = cases(60, 300);
const TIMEOUT_MS = 8_000;
const LEASE_MS = 3 * TIMEOUT_MS;
const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
/** How many attempts of an event the receiver refuses (500) before it accepts; 7 or more: dead-lettered. */
const PLAN = [0, 0, 0, 0, 1, 1, 2, 3, 5, 7] as const;

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
const failuresPlanned = (eventId: string) => PLAN[fnv(eventId) % PLAN.length]!;

/** One request as the receiver saw it. */
interface Receipt {
  eventId: string;
  /** The attempt's number, from the row it was made for. */
  n: number;
  /** The signature's timestamp: the attempt's start on the service's clock (seconds). */
  t: number;
  /** Real time it arrived (ms). */
  at: number;
  answer: number | 'held';
}

const services: WebhookService[] = [];
/** A fresh service process (API + pump) on the database, its clock at `at`. */
async function startService(databaseUrl: string, at: number): Promise<WebhookService> {
  const svc = await WebhookService.start({
    databaseUrl,
    at,
    timeoutMs: TIMEOUT_MS,
    serve: true,
    env: { WEBHOOK_CONCURRENCY: '256' },
  });
  services.push(svc);
  return svc;
}
let minter: TestApp | null = null;
let receiver: Receiver | null = null;
afterAll(async () => {
  for (const svc of services) await svc.kill();
  await minter?.close();
  await receiver?.close();
});

it(
  'SIGKILL of the service mid-schedule, again and again: every event delivered or dead-lettered exactly as the schedule says',
  { timeout: budgetMs(120_000, 300_000) },
  async () => {
    const databaseUrl = await isolatedDatabase();
    receiver = await startReceiver();
    const rx = receiver;
    // Mints the organization and the webhook on the same database with the same master secret; sends nothing.
    minter = await startTestApp({
      env: { DATABASE_URL: databaseUrl, WEBHOOK_DELIVERY_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' },
    });
    const db = minter.db;
    const org = await buildOrg(minter);
    const hook = await call(minter, 'POST', '/v1/webhooks', {
      key: org.admin,
      json: { url: rx.url, events: ['scan.allowed', 'scan.warned', 'scan.flagged', 'scan.blocked'] },
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret as string;

    let svc = await startService(databaseUrl, T0);
    /** When each killed process was seen to exit (ms). */
    const kills: number[] = [];
    const killService = async () => {
      await svc.kill();
      kills.push(Date.now());
    };

    // The receiver: verifies the signature, finds which attempt this is, answers by the plan, dedups.
    const receipts: Receipt[] = [];
    const delivered = new Set<string>();
    let redelivered = 0;
    let hold: (eventId: string, n: number) => boolean = () => false;
    const anomalies: string[] = [];
    rx.respond = async (r) => {
      const eventId = String(r.headers['service-event-id']);
      let timestamp: number;
      try {
        ({ timestamp } = verifyWebhookSignature(r.body, r.headers['service-signature'] as string, secret, {
          now: svc.now,
          toleranceSeconds: 30 * 86_400,
        }));
      } catch (err) {
        anomalies.push(`${eventId}: ${(err as Error).message}`);
        return { status: 400 };
      }
      if ((JSON.parse(r.body) as { id: string }).id !== eventId) anomalies.push(`${eventId}: envelope id differs`);
      const { rows } = await db.query<{ status: string; attempt: number }>(
        'SELECT status, attempt FROM webhook_deliveries WHERE org_id = $1 AND event_id = $2',
        [org.orgId, eventId],
      );
      // An attempt is only made for a row still waiting for one.
      if (rows.length !== 1 || !['pending', 'failed'].includes(rows[0]!.status))
        anomalies.push(`${eventId}: attempt made for ${JSON.stringify(rows)}`);
      const n = rows[0]?.status === 'pending' ? 1 : (rows[0]?.attempt ?? 0) + 1;
      const receipt: Receipt = { eventId, n, t: timestamp, at: r.at, answer: 200 };
      receipts.push(receipt);
      if (hold(eventId, n)) {
        // In flight until the kill (well inside the attempt's limit).
        receipt.answer = 'held';
        return { status: 200, delayMs: TIMEOUT_MS * 2 };
      }
      if (n <= failuresPlanned(eventId)) {
        receipt.answer = 500;
        return { status: 500 };
      }
      // The receiver's dedup: a repeated event id is acknowledged and not processed again.
      if (delivered.has(eventId)) redelivered++;
      delivered.add(eventId);
      return { status: 200 };
    };

    const due = async (now: number) =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1 AND status IN ('pending', 'failed') AND next_attempt_at <= $2 AND (locked_until IS NULL OR locked_until <= $2)`,
          [org.orgId, new Date(now)],
        )
      ).rows[0]!.n;
    const state = async () =>
      JSON.stringify(
        (
          await db.query(
            'SELECT status, sum(attempt)::int AS a, count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1 GROUP BY status ORDER BY status',
            [org.orgId],
          )
        ).rows,
      );
    /** Everything due at the service's time has been claimed, and the receiver and the rows have stopped changing. */
    const settle = async () => {
      let last = '';
      await until(
        async () => {
          const now = `${rx.received.length} ${await state()}`;
          const stable = now === last && (await due(svc.now)) === 0;
          last = now;
          return stable;
        },
        30_000,
        300,
      );
    };
    /** Every due failed row waits for its attempt's time on the schedule, counted from its attempt 1. */
    const onSchedule = async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1 AND status = 'failed'
         AND next_attempt_at <> first_attempt_at + (($2::bigint[])[attempt + 1] * interval '1 millisecond')`,
        [org.orgId, RETRY_SCHEDULE_MS.map(String)],
      );
      expect(rows[0]!.n).toBe(0);
    };

    // 1. Scans under load; attempts 1 of a quarter of the events are held at the receiver; SIGKILL midway.
    hold = (id, n) => n === 1 && fnv(id) % 4 === 0;
    const acknowledged: string[] = [];
    let refused = 0;
    let sent = 0;
    const scanOn = (target: WebhookService, stopAt: () => boolean) => async () => {
      while (!stopAt()) {
        const i = sent++;
        const res = await fetch(`${target.baseUrl}/v1/scans`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text: `webhook schedule scan ${i}` },
            options: { tier: 'fast' },
          }),
        }).catch(() => null);
        if (!res) {
          refused++;
          if (target.child.exitCode !== null || target.child.signalCode !== null) return;
          continue;
        }
        expect(res.status).toBe(201);
        acknowledged.push(((await res.json()) as { id: string }).id);
      }
    };
    const first = svc;
    let killedFirst = false;
    const loadA = Promise.all(
      Array.from(
        { length: 4 },
        scanOn(first, () => killedFirst),
      ),
    );
    await until(() => acknowledged.length >= SCANS / 2 && receipts.some((r) => r.answer === 'held'), 30_000);
    await killService();
    killedFirst = true;
    await loadA;
    const heldAtFirstKill = receipts.filter((r) => r.answer === 'held').length;

    // 2. A fresh process at the same time takes the rest of the scans; nothing is held any more.
    hold = () => false;
    svc = await startService(databaseUrl, T0);
    const second = svc;
    await Promise.all(
      Array.from(
        { length: 4 },
        scanOn(second, () => acknowledged.length >= SCANS),
      ),
    );
    await settle();
    // The first process's held rows wait for its lease, then their attempt 1 is made again.
    await svc.setTime(T0 + LEASE_MS + 1_000);
    await settle();
    await onSchedule();

    /**
     * Kills the process while the attempts `hold` picks are in flight, then starts the next one on the
     * same clock and moves it past the dead holder's lease: the held attempts are made again. Returns
     * how many requests the receiver held so far.
     */
    const killWhileHeld = async (): Promise<number> => {
      const held = receipts.filter((r) => r.answer === 'held').length;
      await killService();
      hold = () => false;
      svc = await startService(databaseUrl, svc.now);
      await svc.setTime(svc.now + LEASE_MS + 1_000);
      await settle();
      await onSchedule();
      return held;
    };

    // 3. Attempt 2 everywhere; a quarter of them are in flight when the process dies.
    hold = (id, n) => n === 2 && fnv(id) % 4 === 1;
    await svc.setTime(T0 + LEASE_MS + RETRY_SCHEDULE_MS[1] + 1_000);
    await settle();
    const heldBefore = await killWhileHeld();

    // 4. Killed while retries are only pending (nothing in flight); the next process starts 11 minutes
    //    in, past the 2 min and 10 min attempts: the overdue ones are made back to back.
    await killService();
    svc = await startService(databaseUrl, T0 + 11 * MIN);
    await settle();
    await onSchedule();

    // 5. The hour; then attempt 6 is in flight for every event that reaches it when the process dies.
    await svc.setTime(T0 + HOUR + 2 * MIN);
    await settle();
    hold = (_id, n) => n === 6;
    await svc.setTime(T0 + 6 * HOUR + 2 * MIN);
    await settle();
    const heldAtLastKill = await killWhileHeld();

    // 6. The last attempt, then far beyond: nothing more happens.
    await svc.setTime(T0 + 24 * HOUR + 3 * MIN);
    await settle();
    await svc.setTime(T0 + 30 * 24 * HOUR);
    await settle();
    await sleep(300);

    expect(anomalies).toEqual([]);
    // No delivery row lost: one per stored scan, and every acknowledged scan is stored.
    const { rows: deliveries } = await db.query<{
      event_id: string;
      scan_id: string;
      status: string;
      attempt: number;
      first_attempt_at: Date;
      next_attempt_at: Date | null;
      delivered_at: Date | null;
    }>(
      'SELECT event_id, scan_id, status, attempt, first_attempt_at, next_attempt_at, delivered_at FROM webhook_deliveries WHERE org_id = $1',
      [org.orgId],
    );
    const { rows: scans } = await db.query<{ id: string }>('SELECT id FROM scans WHERE org_id = $1', [org.orgId]);
    const stored = new Set(scans.map((s) => s.id));
    for (const id of acknowledged) expect(stored.has(id), `acknowledged scan ${id} is not stored`).toBe(true);
    expect(deliveries.map((d) => d.scan_id).sort()).toEqual([...stored].sort());

    // Each event as the schedule says, and the receiver's view of it.
    const byEvent = new Map<string, Receipt[]>();
    for (const r of receipts) byEvent.set(r.eventId, [...(byEvent.get(r.eventId) ?? []), r]);
    let duplicates = 0;
    for (const d of deliveries) {
      const planned = failuresPlanned(d.event_id);
      const attempts = Math.min(planned + 1, MAX_ATTEMPTS);
      expect({ status: d.status, attempt: d.attempt, next: d.next_attempt_at }).toEqual({
        status: planned < MAX_ATTEMPTS ? 'succeeded' : 'dead_lettered',
        attempt: attempts,
        next: null,
      });
      expect(delivered.has(d.event_id)).toBe(planned < MAX_ATTEMPTS);
      const seen = byEvent.get(d.event_id) ?? [];
      // Attempts numbered 1, 2, … without gaps; a number repeats only when a kill came between the two.
      expect(seen[0]?.n).toBe(1);
      for (let i = 1; i < seen.length; i++) {
        const [prev, cur] = [seen[i - 1]!, seen[i]!];
        if (cur.n === prev.n) {
          duplicates++;
          // (A request the dying process sent may reach the receiver just after its exit was seen.)
          expect(
            kills.some((k) => prev.at < k + 500 && k < cur.at),
            `attempt ${cur.n} of ${d.event_id} made twice without a kill between: ${JSON.stringify(seen)}, kills at ${kills.join(', ')}`,
          ).toBe(true);
        } else expect(cur.n).toBe(prev.n + 1);
      }
      expect(seen.at(-1)!.n).toBe(attempts);
      // Never early: attempt n ≥ 2 starts no sooner than its time after the recorded attempt 1.
      const firstSeconds = Math.floor(d.first_attempt_at.getTime() / 1000);
      for (const r of seen.filter((x) => x.n > 1))
        expect(r.t).toBeGreaterThanOrEqual(firstSeconds + RETRY_SCHEDULE_MS[r.n - 1]! / 1000);
    }
    // The kills did hit attempts in flight.
    expect(heldAtFirstKill).toBeGreaterThan(0);
    expect(heldBefore).toBeGreaterThan(heldAtFirstKill);
    expect(heldAtLastKill).toBeGreaterThan(heldBefore);
    expect(duplicates).toBeGreaterThan(0);

    const statuses: Record<string, number> = {};
    for (const d of deliveries) statuses[`${d.status}@${d.attempt}`] = (statuses[`${d.status}@${d.attempt}`] ?? 0) + 1;
    console.info(
      `faults-webhooks: ${kills.length} SIGKILLs, ${acknowledged.length} scans acknowledged (${refused} requests cut by the first kill), ${deliveries.length} deliveries ` +
        `${JSON.stringify(Object.fromEntries(Object.entries(statuses).sort()))}; ${receipts.length} requests at the receiver, ${duplicates} repeated attempts ` +
        `(held at the kills: ${heldAtFirstKill}, ${heldBefore - heldAtFirstKill}, ${heldAtLastKill - heldBefore}); ${delivered.size} events delivered after dedup (${redelivered} accepted twice: answered, then the kill came before the outcome was recorded)`,
    );
  },
);
