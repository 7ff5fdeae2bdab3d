import type { ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock.ts';
import { CLAIM_LEASE_MS, ClaimLeases, claimKey, type IdempotencyDeps } from '../../services/idempotency.ts';
import { startChildService } from '../support/child-service.ts';
import { buildOrg, isolatedDatabase, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * An Idempotency-Key claim is a lease its process renews while the request runs: a live owner keeps
 * it however long the request takes, and when the owner dies (kill -9, a lost node) the same request
 * retried elsewhere takes it over within one lease instead of waiting out a long lock.
 */
let dbUrl: string;
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  // Its own database: the crash test below locks the scans table.
  dbUrl = await isolatedDatabase();
  app = await startTestApp({ env: { DATABASE_URL: dbUrl } });
  org = await buildOrg(app);
}, 60_000);
afterAll(async () => app?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('claim leases (services/idempotency.ts)', () => {
  it('a held claim stays in progress past several leases; once its heartbeat stops, the same request takes it over and another body does not', async () => {
    const leaseMs = 1_000;
    const deps: IdempotencyDeps = {
      db: app.db,
      clock: systemClock,
      ttlHours: 24,
      sealKey: Buffer.alloc(32, 7),
      leaseMs,
    };
    const leases = new ClaimLeases(app.db, systemClock, leaseMs);
    const ref = { orgId: org.orgId, key: `lease-${randomUUID()}`, principalId: org.adminId };
    const body = createHash('sha256').update('the request').digest();

    const first = await claimKey(deps, ref, body);
    expect(first.kind).toBe('claimed');
    const unhold = leases.hold({ ...ref, claimedAt: first.claimedAt });
    expect(leases.size).toBe(1);

    // Three leases later the owner's heartbeat has kept it: a retry is told to wait, with a Retry-After
    // no longer than the lease.
    await sleep(3 * leaseMs);
    const meanwhile = await claimKey(deps, ref, body);
    expect(meanwhile.kind).toBe('in_progress');
    const lockedUntil = (meanwhile as { lockedUntil: Date | null }).lockedUntil!;
    expect(lockedUntil.getTime()).toBeGreaterThan(Date.now());
    expect(lockedUntil.getTime()).toBeLessThanOrEqual(Date.now() + leaseMs + 50);

    // The owner "dies": no more renewals. Past one lease the claim is free for the same request only.
    unhold();
    expect(leases.size).toBe(0);
    await sleep(leaseMs + 200);
    const other = await claimKey(deps, ref, createHash('sha256').update('another body').digest());
    expect(other.kind).toBe('mismatch');
    const takeover = await claimKey(deps, ref, body);
    expect(takeover.kind).toBe('claimed');
  });
});

describe('a node dies holding a claim (real process, kill -9)', () => {
  let child: ChildProcess;
  let port: number;

  beforeAll(async () => {
    ({ child, port } = await startChildService(dbUrl));
  }, 90_000);
  afterAll(() => void child?.kill('SIGKILL'));

  it(
    'the claim outlives its lease while the owner runs, and after kill -9 a retry on another node gets the scan within one lease',
    { timeout: 60_000 },
    async () => {
      const key = `crash-${randomUUID()}`;
      const body = JSON.stringify({
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: 'hello from a node about to die' },
      });
      const headers = {
        authorization: `Bearer ${org.admin}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      };
      // Hold the scan between its claim and its commit: the scans table is locked.
      const locker = new pg.Client(dbUrl);
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE scans IN EXCLUSIVE MODE');
      try {
        const doomed = fetch(`http://127.0.0.1:${port}/v1/scans`, { method: 'POST', headers, body }).then(
          (r) => r.status,
          (err: Error) => err,
        );
        const state = async () =>
          (
            await app.db.query<{ state: string }>('SELECT state FROM idempotency_keys WHERE org_id = $1 AND key = $2', [
              org.orgId,
              key,
            ])
          ).rows[0]?.state;
        for (let i = 0; (await state()) !== 'in_progress'; i++) {
          if (i > 500) throw new Error('the claim never appeared');
          await sleep(20);
        }
        // Longer than a lease: the live owner renews its claim, so the other node still says "in progress".
        await sleep(CLAIM_LEASE_MS + 1_500);
        const early = await fetch(`${app.baseUrl}/v1/scans`, { method: 'POST', headers, body });
        expect(early.status).toBe(409);
        expect(((await early.json()) as { code: string }).code).toBe('idempotency.request_in_progress');
        const wait = Number(early.headers.get('retry-after'));
        expect(wait).toBeGreaterThanOrEqual(1);
        expect(wait).toBeLessThanOrEqual(Math.ceil(CLAIM_LEASE_MS / 1000));

        child.kill('SIGKILL');
        expect(await doomed).toBeInstanceOf(Error);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }

      // The client's retry on another node, honouring Retry-After: the claim lapses within one lease.
      let attempts = 0;
      for (;;) {
        attempts++;
        const r = await fetch(`${app.baseUrl}/v1/scans`, { method: 'POST', headers, body });
        if (r.status === 201) {
          const scan = (await r.json()) as { id: string };
          expect(scan.id).toMatch(/^scan_/);
          break;
        }
        expect(r.status).toBe(409);
        expect(attempts).toBeLessThanOrEqual(Math.ceil(CLAIM_LEASE_MS / 1000) + 1);
        await sleep(Number(r.headers.get('retry-after')) * 1000);
      }
      // And the retry's answer is what the key replays from now on, on any node.
      const replay = await fetch(`${app.baseUrl}/v1/scans`, { method: 'POST', headers, body });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    },
  );
});
