import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { buildOrg, call, isolatedDatabase, startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { WebhookService } from '../support/webhook-service.ts';

// A process killed in the middle of the schedule: the next process resumes it with no attempt lost,
// and only the attempt that was in flight at the kill is made twice (at-least-once).

const TIMEOUT_MS = 2_000;
const LEASE_MS = TIMEOUT_MS * 3;
const T0 = new Date('2026-05-01T00:00:00.000Z').getTime();
let clock: ManualClock;
let app: TestApp;
let receiver: Receiver;
let databaseUrl: string;
const services: WebhookService[] = [];

/** The delivering process, its clock at `at`. */
async function startChild(at: Date): Promise<WebhookService> {
  const svc = await WebhookService.start({ databaseUrl, at: at.getTime(), timeoutMs: TIMEOUT_MS });
  services.push(svc);
  return svc;
}

/** Moves both clocks (this process stores scans; the child delivers). */
async function setTime(svc: WebhookService, at: number): Promise<void> {
  clock.set(new Date(at));
  await svc.setTime(at);
}

const until = async (what: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  clock = new ManualClock(new Date(T0));
  databaseUrl = await isolatedDatabase();
  receiver = await startReceiver();
  // This process serves the API and stores scans; it sends nothing itself.
  app = await startTestApp({
    clock,
    env: { DATABASE_URL: databaseUrl, WEBHOOK_DELIVERY_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' },
  });
});
afterAll(async () => {
  for (const svc of services) await svc.kill();
  await app?.close();
  await receiver?.close();
});

it('resumes the retry schedule after the delivering process is killed mid-attempt', { timeout: 60_000 }, async () => {
  const org = await buildOrg(app);
  await call(app, 'POST', '/v1/policies', {
    key: org.admin,
    json: {
      name: 'p',
      is_default: true,
      rules: [
        { name: 'ssn', when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] }, then: { action: 'blocked' } },
      ],
      default_action: 'allowed',
    },
  });
  const hook = await call(app, 'POST', '/v1/webhooks', {
    key: org.admin,
    json: { url: receiver.url, events: ['scan.blocked'] },
  });
  expect(hook.status).toBe(201);
  const delivery = async () =>
    (await call(app, 'GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key: org.admin })).body.data[0];

  let hang = false;
  receiver.respond = () => (hang ? { status: 200, delayMs: 60_000 } : { status: 500 });
  const a = await startChild(new Date(T0));
  const scan = await call(app, 'POST', '/v1/scans', {
    key: org.admin,
    json: {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text: 'ssn 536-22-1234' },
      options: { tier: 'fast' },
    },
  });
  expect(scan.body.decision.action).toBe('blocked');

  // Attempts 1 and 2 fail and are recorded.
  await receiver.waitFor(1);
  await until(async () => (await delivery())?.attempt === 1 && (await delivery()).status === 'failed');
  await setTime(a, T0 + RETRY_SCHEDULE_MS[1]);
  await receiver.waitFor(2);
  await until(async () => (await delivery()).attempt === 2);

  // Attempt 3 is in flight when the process dies.
  hang = true;
  await setTime(a, T0 + RETRY_SCHEDULE_MS[2]);
  await receiver.waitFor(3);
  await a.kill();
  hang = false;
  expect(await delivery()).toMatchObject({ status: 'failed', attempt: 2 });

  // A new process: the row stays held until the dead holder's lease passes, then attempt 3 is made again.
  const b = await startChild(new Date(T0 + RETRY_SCHEDULE_MS[2]));
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received).toHaveLength(3);
  await setTime(b, T0 + RETRY_SCHEDULE_MS[2] + LEASE_MS);
  await receiver.waitFor(4);
  await until(async () => (await delivery()).attempt === 3);
  expect(await delivery()).toMatchObject({
    status: 'failed',
    attempt: 3,
    next_attempt_at: new Date(T0 + RETRY_SCHEDULE_MS[3]).toISOString(),
  });

  // The rest of the schedule runs on the new process, on the original times.
  for (let n = 4; n <= 7; n++) {
    await setTime(b, T0 + RETRY_SCHEDULE_MS[n - 1]!);
    await receiver.waitFor(n + 1);
    await until(async () => (await delivery()).attempt === n);
  }
  expect(await delivery()).toMatchObject({ status: 'dead_lettered', attempt: 7, next_attempt_at: null });
  await setTime(b, T0 + 10 * 86_400_000);
  await new Promise((r) => setTimeout(r, 300));
  // 7 attempts plus the one repeated after the kill; one event id throughout.
  expect(receiver.received).toHaveLength(8);
  expect(new Set(receiver.received.map((r) => r.headers['service-event-id']))).toEqual(
    new Set([`evt_${scan.body.id.slice(5)}`]),
  );
});
