/**
 * Webhook deliveries across nodes: every node runs a delivery pump on the one outbox, and each event
 * must reach the receiver once per attempt of its schedule, never twice from two nodes
 * (docs/multinode.md). The receiver listens in the bed's client namespace.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { useBed } from './bed.ts';
import { call, inPool, scanBody, spread } from './client.ts';
import { startBedReceiver, type Delivery } from './receiver.ts';

const bed = useBed();
afterAll(() => bed.close());

describe('webhooks across nodes', () => {
  it('each event: attempt 1 fails, attempt 2 comes on schedule and succeeds; no attempt is sent twice', async () => {
    const org = bed.createOrg();
    // The first attempt of every event fails (500), the second succeeds.
    const receiver = await startBedReceiver(bed.description, (_, earlier) => (earlier.length === 0 ? 500 : 200));
    try {
      const hook = await call(bed.balancerUrl, 'POST', '/v1/webhooks', {
        key: org.adminKey,
        json: { url: receiver.url, events: ['scan.allowed', 'scan.flagged', 'scan.warned', 'scan.blocked'] },
      });
      expect(hook.status).toBe(201);
      // Every node's subscription cache must know the webhook before the scans (pushed over Redis).
      await sleep(300);
      const scans = 12;
      const { result, perNode } = await spread(bed, () =>
        inPool(Array.from({ length: scans }), 4, (_, i) =>
          call(bed.balancerUrl, 'POST', '/v1/scans', { key: org.adminKey, json: scanBody(`webhook event ${i}`) }),
        ),
      );
      for (const r of result) expect(r.status).toBe(201);
      for (const node of bed.nodes) expect(perNode[node.name]).toBeGreaterThan(0);

      // Attempt 2 is due 30 s after attempt 1 started.
      const deadline = Date.now() + RETRY_SCHEDULE_MS[1] + 20_000;
      const byEvent = () => {
        const map = new Map<string, Delivery[]>();
        for (const d of receiver.received) map.set(d.eventId, [...(map.get(d.eventId) ?? []), d]);
        return map;
      };
      while (!(byEvent().size === scans && [...byEvent().values()].every((ds) => ds.length >= 2))) {
        if (Date.now() > deadline)
          throw new Error(`deliveries: ${JSON.stringify([...byEvent()].map(([, d]) => d.length))}`);
        await sleep(250);
      }
      await sleep(3_000); // a duplicate from another pump would arrive meanwhile
      const events = byEvent();
      expect(events.size).toBe(scans);
      const gaps: number[] = [];
      for (const [eventId, deliveries] of events) {
        expect(deliveries, eventId).toHaveLength(2);
        const gap = deliveries[1]!.at - deliveries[0]!.at;
        gaps.push(gap);
        // Never early (the schedule counts from attempt 1's start, a few ms before it arrived here).
        expect(gap).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[1] - 500);
      }
      const senders: Record<string, number> = {};
      for (const d of receiver.received) senders[d.from] = (senders[d.from] ?? 0) + 1;
      bed.measure('webhooks.attempts_by_sender', senders);
      bed.measure('webhooks.attempt2_after_attempt1_ms', { min: Math.min(...gaps), max: Math.max(...gaps) });

      const rows = await bed.query<{ status: string; attempt: number; n: string }>(
        'SELECT status, attempt, count(*) AS n FROM webhook_deliveries WHERE org_id = $1 GROUP BY 1, 2',
        [org.id],
      );
      expect(rows.map((r) => [r.status, r.attempt, Number(r.n)])).toEqual([['succeeded', 2, scans]]);
    } finally {
      await receiver.close();
    }
  });
});
