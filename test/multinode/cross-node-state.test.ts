/**
 * State shared across nodes, through HAProxy with requests spread over every node: per-key rate
 * limits, key revocation, Idempotency-Key replays and policy changes (docs/multinode.md).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { BED_RATE_LIMIT, useBed } from './bed.ts';
import { call, inPool, scanBody, spread } from './client.ts';

const bed = useBed();
afterAll(() => bed.close());

const lb = bed.balancerUrl;

async function mintKey(adminKey: string, scopes: string[]): Promise<{ id: string; secret: string }> {
  const r = await call(lb, 'POST', '/v1/api-keys', { key: adminKey, json: { name: 'cross-node', scopes } });
  expect(r.status).toBe(201);
  return { id: r.body.id, secret: r.body.secret };
}

/** Polls `check` on every node at once until it holds; returns each node's milliseconds since `since`. */
async function perNodeUntil(
  since: number,
  timeoutMs: number,
  check: (nodeUrl: string) => Promise<boolean>,
): Promise<Record<string, number>> {
  const times = await Promise.all(
    bed.nodes.map(async (node) => {
      for (;;) {
        if (await check(node.url)) return Date.now() - since;
        if (Date.now() - since > timeoutMs) throw new Error(`${node.name}: not within ${timeoutMs} ms`);
        await sleep(5);
      }
    }),
  );
  return Object.fromEntries(bed.nodes.map((n, i) => [n.name, times[i]!]));
}

describe('per-key rate limits hold across nodes', () => {
  it(`one key gets ${BED_RATE_LIMIT.requests} requests per ${BED_RATE_LIMIT.windowSeconds} s window in all, however many nodes serve it`, async () => {
    const { requests: limit, windowSeconds } = BED_RATE_LIMIT;
    const windowMs = windowSeconds * 1000;
    const extra = 150;
    // Windows are aligned to the epoch: the burst must sit inside one window, else it is tried again.
    for (let attempt = 1; ; attempt++) {
      const key = await mintKey(bed.adminKey, ['scans:read']);
      const untilNext = windowMs - (Date.now() % windowMs);
      if (untilNext < windowMs / 2) await sleep(untilNext + 20);
      const firstSent = Date.now();
      const { result: statuses, perNode } = await spread(bed, () =>
        inPool(Array.from({ length: limit + extra }), 16, async () => {
          const r = await call(lb, 'GET', '/v1/me', { key: key.secret });
          return r.status;
        }),
      );
      const lastAnswered = Date.now();
      if (Math.floor(firstSent / windowMs) !== Math.floor(lastAnswered / windowMs)) {
        if (attempt < 3) continue;
        throw new Error('the burst never fit in one rate-limit window');
      }
      bed.measure('rate_limit.burst', { sent: limit + extra, ms: lastAnswered - firstSent, perNode });
      for (const node of bed.nodes) expect(perNode[node.name], `${node.name} served none`).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(extra);
      return;
    }
  });
});

describe('revocation', () => {
  it('a revoked key is refused by every node within 1 s (each node measured)', async () => {
    const key = await mintKey(bed.adminKey, ['scans:read']);
    // Every node has the key in its auth cache (30 s with Redis) before the revocation.
    for (const node of bed.nodes) expect((await call(node.url, 'GET', '/v1/me', { key: key.secret })).status).toBe(200);
    const revoke = await call(lb, 'POST', `/v1/api-keys/${key.id}:revoke`, { key: bed.adminKey });
    expect(revoke.status).toBe(204);
    const revokedAt = Date.now();
    const perNode = await perNodeUntil(
      revokedAt,
      1_000,
      async (url) => (await call(url, 'GET', '/v1/me', { key: key.secret })).status === 401,
    );
    bed.measure('revocation.refused_after_ms', perNode);
    // and stays refused through the balancer
    const after = await inPool(
      Array.from({ length: 12 }),
      4,
      async () => (await call(lb, 'GET', '/v1/me', { key: key.secret })).status,
    );
    expect(new Set(after)).toEqual(new Set([401]));
  });
});

describe('Idempotency-Key across nodes', () => {
  it('a scan made on one node is replayed by every other, and through the balancer', async () => {
    const org = bed.createOrg();
    const headers = { 'idempotency-key': `cross-${randomBytes(6).toString('hex')}` };
    const body = scanBody('hello from one node');
    const [first, ...others] = bed.nodes;
    const made = await call(first!.url, 'POST', '/v1/scans', { key: org.adminKey, json: body, headers });
    expect(made.status).toBe(201);
    expect(made.headers.get('idempotent-replayed')).toBeNull();
    for (const node of others) {
      const again = await call(node.url, 'POST', '/v1/scans', { key: org.adminKey, json: body, headers });
      expect(again.status, node.name).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(made.body.id);
    }
    const { result, perNode } = await spread(bed, () =>
      inPool(Array.from({ length: 9 }), 3, () =>
        call(lb, 'POST', '/v1/scans', { key: org.adminKey, json: body, headers }),
      ),
    );
    for (const node of bed.nodes) expect(perNode[node.name]).toBeGreaterThan(0);
    for (const r of result) expect([r.status, r.body.id]).toEqual([201, made.body.id]);
    const stored = await bed.query<{ n: string }>('SELECT count(*) AS n FROM scans WHERE org_id = $1', [org.id]);
    expect(Number(stored[0]!.n)).toBe(1);
  });

  it('the same key sent to every node at once makes one scan; the rest replay it or are told to retry', async () => {
    const org = bed.createOrg();
    for (let round = 0; round < 5; round++) {
      const headers = { 'idempotency-key': `race-${round}-${randomBytes(6).toString('hex')}` };
      const body = scanBody(`race ${round}`);
      const replies = await Promise.all(
        bed.nodes.map((node) => call(node.url, 'POST', '/v1/scans', { key: org.adminKey, json: body, headers })),
      );
      for (const r of replies) expect([201, 409]).toContain(r.status);
      const conflicts = replies.filter((r) => r.status === 409);
      for (const r of conflicts) expect(r.body.code).toBe('idempotency.request_in_progress');
      const ids = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.id));
      expect(ids.size).toBe(1);
    }
    const stored = await bed.query<{ n: string }>('SELECT count(*) AS n FROM scans WHERE org_id = $1', [org.id]);
    expect(Number(stored[0]!.n)).toBe(5);
  });
});

describe('policy changes', () => {
  it('a new or changed policy decides the next scan on every node within 1 s (each node measured)', async () => {
    const org = bed.createOrg();
    const body = scanBody('hi there');
    // Every node caches "no policy" for this organization first.
    for (const node of bed.nodes) {
      const r = await call(node.url, 'POST', '/v1/scans', { key: org.adminKey, json: body });
      expect(r.body.decision.policy_id).toBeNull();
    }
    const policy = { name: 'default', rules: [], default_action: 'warned', is_default: true };
    const created = await call(lb, 'POST', '/v1/policies', { key: org.adminKey, json: policy });
    expect(created.status).toBe(201);
    const createdAt = Date.now();
    const seen = await perNodeUntil(createdAt, 1_000, async (url) => {
      const r = await call(url, 'POST', '/v1/scans', { key: org.adminKey, json: body });
      return r.body.decision.policy_id === created.body.id;
    });
    const changed = await call(lb, 'PUT', `/v1/policies/${created.body.id}`, {
      key: org.adminKey,
      json: { ...policy, default_action: 'flagged' },
    });
    expect(changed.status).toBe(200);
    const changedAt = Date.now();
    const seenChange = await perNodeUntil(changedAt, 1_000, async (url) => {
      const r = await call(url, 'POST', '/v1/scans', { key: org.adminKey, json: body });
      return r.body.decision.action === 'flagged';
    });
    bed.measure('policy.created_seen_after_ms', seen);
    bed.measure('policy.changed_seen_after_ms', seenChange);
  });
});

describe('client addresses behind the balancer', () => {
  it("a spoofed X-Forwarded-For does not escape the per-address budget: HAProxy replaces it with the client's address", async () => {
    const windowMs = BED_RATE_LIMIT.windowSeconds * 1000;
    // RATE_LIMIT_UNAUTHENTICATED_REQUESTS (600 by default) per address per window, summed over nodes.
    const limit = 600;
    for (let attempt = 1; ; attempt++) {
      const untilNext = windowMs - (Date.now() % windowMs);
      if (untilNext < windowMs / 2) await sleep(untilNext + 20);
      const firstSent = Date.now();
      const statuses = await inPool(Array.from({ length: limit + 50 }), 16, async (_, i) => {
        // Each request claims another client address; a node trusting it would give each its own budget.
        const spoofed = `198.51.100.${i % 250}, 203.0.113.${i % 200}`;
        return (await call(lb, 'GET', '/v1/me', { headers: { 'x-forwarded-for': spoofed } })).status;
      });
      if (Math.floor(firstSent / windowMs) !== Math.floor(Date.now() / windowMs)) {
        if (attempt < 3) continue;
        throw new Error('the burst never fit in one rate-limit window');
      }
      expect(statuses.filter((s) => s === 401)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(50);
      // The test process's address has spent its budget: later requests without a valid key (a
      // revoked one) would be answered 429 before 401 until the window ends.
      await sleep(windowMs - (Date.now() % windowMs) + 20);
      return;
    }
  });
});
