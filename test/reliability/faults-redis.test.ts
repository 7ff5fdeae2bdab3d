import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { InvalidationBus } from '../../services/invalidation-bus.ts';
import { buildApiKey, buildOrg, call, startTestApp, type TestApp } from '../support/harness.ts';
import { RedisServer, redisServerInstalled } from '../support/redis-server.ts';
import { maxMs, sleep, SteadyLoad, tally, until, within, type Sample } from './load.ts';
import { budgetMs, cases } from './profile.ts';

/**
 * Redis goes away under load and comes back, on a `redis-server` of the test's own (never the shared
 * :6379). Redis holds no stored data here — shared rate-limit counters and the invalidation bus
 * (revocations, policy and webhook-subscription changes) — so the service must not notice beyond
 * degrading: every request is served as usual, rate limits count per process, a revocation reaches
 * other processes within the short cache TTL, and once Redis is back the subscriptions and the shared
 * counters come back by themselves.
 */

const installed = redisServerInstalled();
if (!installed) console.warn('faults-redis: SKIPPED — no redis-server binary on PATH (apt-get install redis-server)');

const OUTAGE_MS = cases(3, 20) * 1000;
// The unauthenticated limit is what the rate-limit probes spend (the load's keys have a huge limit).
const UNAUTH_LIMIT = 5;
const WINDOW_S = 2;

interface Fault {
  name: string;
  down(r: RedisServer): Promise<void> | void;
  up(r: RedisServer): Promise<void> | void;
}

const FAULTS: Fault[] = [
  { name: 'killed (SIGKILL), then started again on the same port', down: (r) => r.kill(), up: (r) => r.start() },
  { name: 'SHUTDOWN NOSAVE, then started again on the same port', down: (r) => r.shutdown(), up: (r) => r.start() },
  // The process stays and its sockets stay open, but nothing answers: no 'close' ever tells the client.
  { name: 'frozen (SIGSTOP), then resumed (SIGCONT)', down: (r) => r.freeze(), up: (r) => r.thaw() },
];

const buses = (app: TestApp): InvalidationBus[] => [
  app.built.services.revocations,
  app.built.services.policies.changes,
  app.built.services.webhooks.changes,
];
const allLive = (apps: TestApp[]) => apps.every((a) => buses(a).every((b) => b.crossProcess()));

/**
 * `n` unauthenticated requests, round-robin over `apps`, sent right after a rate-limit window begins
 * (fixed windows aligned to the epoch), so all of them count in one window. Returns the statuses.
 */
async function unauthenticatedBurst(apps: TestApp[], n: number): Promise<number[]> {
  const windowMs = WINDOW_S * 1000;
  await sleep(windowMs - (Date.now() % windowMs) + 20);
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await call(apps[i % apps.length]!, 'GET', '/v1/me')).status);
  return statuses;
}

let redis: RedisServer | null = null;
const opened: TestApp[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  await redis?.destroy();
  redis = null;
});

describe.skipIf(!installed)('Redis goes away under load and comes back', () => {
  for (const fault of FAULTS) {
    it(
      `${fault.name}: uninterrupted service, per-process limits, revocations within the short TTL; then shared again`,
      { timeout: budgetMs(60_000, 120_000) },
      async () => {
        redis = await RedisServer.create();
        const prefix = `cf_fault_${randomBytes(4).toString('hex')}:`;
        const env = {
          RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(UNAUTH_LIMIT),
          RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S),
        };
        // Two processes of one deployment.
        const one = await startTestApp({ redisPrefix: prefix, redisUrl: redis.url, env });
        opened.push(one);
        const two = await startTestApp({ redisPrefix: prefix, redisUrl: redis.url, env });
        opened.push(two);
        const org = await buildOrg(one);
        const auth = { authorization: `Bearer ${org.admin}` };
        const scan = (i: number) => ({
          kind: 'content',
          surface: 'user_message',
          content: { type: 'text', text: `steady load ${i}: my SSN is 536-22-1234` },
          options: { tier: 'fast' },
        });
        const load = new SteadyLoad(
          (i) =>
            [
              { op: 'scan', method: 'POST', url: `${one.baseUrl}/v1/scans`, headers: auth, body: scan(i) },
              { op: 'me', method: 'GET', url: `${two.baseUrl}/v1/me`, headers: auth },
              { op: 'scan', method: 'POST', url: `${two.baseUrl}/v1/scans`, headers: auth, body: scan(i) },
              { op: 'list', method: 'GET', url: `${one.baseUrl}/v1/scans?limit=5`, headers: auth },
            ][i % 4]!,
          { workers: 4, pauseMs: 10, hangMs: 5_000 },
        );
        load.start();
        await sleep(500);

        // A key cached by process two while the bus is live (its TTL is then 30 s).
        const early = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
        expect((await call(two, 'GET', '/v1/me', { key: early.secret })).status).toBe(200);

        const downAt = Date.now();
        await fault.down(redis);

        // Revoked elsewhere while Redis is away: the message is lost, the short TTL must bound the delay.
        const revokeStarted = Date.now();
        const revoke = await call(one, 'POST', `/v1/api-keys/${early.key.id}:revoke`, { key: org.admin });
        const revokeMs = Date.now() - revokeStarted;
        expect(revoke.status).toBe(204);
        const revokedDuringMs = await within(
          async () => (await call(two, 'GET', '/v1/me', { key: early.secret })).status === 401,
          5_000,
        );
        expect
          .soft(revokedDuringMs, 'the revoked key was still accepted by the other process after 5 s')
          .not.toBeNull();

        // Limits count in each process while the shared counters are out of reach.
        const outageBurst = await unauthenticatedBurst([one], UNAUTH_LIMIT + 2);
        expect.soft(outageBurst).toEqual([...Array<number>(UNAUTH_LIMIT).fill(401), 429, 429]);

        await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt)));
        const upAt = Date.now();
        await fault.up(redis);
        const outageMs = upAt - downAt;
        const recoveredMs = await until(() => allLive([one, two]), 15_000);
        const recoveredAt = Date.now();

        // Subscriptions are back: a revocation reaches process two through the bus (its TTL is 30 s again).
        const late = await buildApiKey(one, org.orgId, { scopes: ['scans:read'] });
        expect((await call(two, 'GET', '/v1/me', { key: late.secret })).status).toBe(200);
        expect(two.built.services.revocations.crossProcess()).toBe(true);
        expect((await call(one, 'POST', `/v1/api-keys/${late.key.id}:revoke`, { key: org.admin })).status).toBe(204);
        const revokedAfterMs = await until(
          async () => (await call(two, 'GET', '/v1/me', { key: late.secret })).status === 401,
          1_000,
        );

        // The counters are shared again: requests spread over both processes count in one window.
        const sharedBurst = await unauthenticatedBurst([one, two], UNAUTH_LIMIT + 2);
        expect(sharedBurst).toEqual([...Array<number>(UNAUTH_LIMIT).fill(401), 429, 429]);

        await sleep(500);
        const samples = await load.stop();
        const during = load.between(downAt, upAt);
        const after = load.between(upAt, recoveredAt);
        const failed = samples.filter((s: Sample) => s.status >= 400 || s.status === 0);
        expect(failed, `failed requests: ${JSON.stringify(tally(failed))}`).toEqual([]);
        expect(during.length).toBeGreaterThan(20);
        // Nothing waits on Redis longer than a command timeout (500 ms) plus ordinary latency on a busy machine.
        expect(maxMs(samples)).toBeLessThan(4_000);

        // Every acknowledged scan is stored.
        const acknowledged = samples.filter((s) => s.op === 'scan' && s.status === 201).map((s) => s.id!);
        const { rows } = await one.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM scans WHERE org_id = $1 AND id = ANY($2)',
          [org.orgId, acknowledged],
        );
        expect(rows[0]!.n).toBe(acknowledged.length);

        console.info(
          `faults-redis [${fault.name}]: outage ${outageMs} ms; during it ${JSON.stringify(tally(during))}, slowest ${maxMs(during)} ms; ` +
            `revoke request ${revokeMs} ms, refused by the other process after ${revokedDuringMs} ms; outage burst ${outageBurst.join(',')}; ` +
            `subscriptions back ${recoveredMs} ms after Redis (${JSON.stringify(tally(after))} meanwhile); revocation after recovery ${revokedAfterMs} ms; ` +
            `shared burst ${sharedBurst.join(',')}; whole run ${JSON.stringify(tally(samples))}, slowest ${maxMs(samples)} ms, ${acknowledged.length} scans stored`,
        );
      },
    );
  }
});
