/**
 * What the webhooks-*.test.ts files share: an app on a database of its own (the pump claims every
 * organization's deliveries) with a manual clock, fake DNS (rebind.example.com registers as public and
 * every delivery resolves to 10.0.0.7) and a 5-failure threshold; a local HTTPS receiver that answers 200
 * unless a test says otherwise; two organizations whose default policy blocks SSNs; and the calls the
 * tests repeat. The bindings are live: they are set by the hooks that `useWebhooksApp` registers.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildOrg, call, isolatedDatabase, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';

export const SSN_TEXT = 'my ssn is 536-22-1234 please file it';
const BLOCK_SSN = {
  name: 'block SSNs',
  is_default: true,
  rules: [
    {
      id: 'ssn',
      name: 'ssn',
      when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
      then: { action: 'blocked' },
    },
  ],
  default_action: 'allowed',
};

export let clock: ManualClock;
export let app: TestApp;
export let receiver: Receiver;
export let org: TestOrg;
export let other: TestOrg;

/** Starts the receiver, the app and both organizations before this file's tests, resets the receiver before each. */
export function useWebhooksApp(): void {
  beforeAll(async () => {
    clock = new ManualClock('2026-03-01T00:00:00.000Z');
    receiver = await startReceiver();
    app = await startTestApp({
      clock,
      env: {
        DATABASE_URL: await isolatedDatabase(),
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
        WEBHOOK_TIMEOUT_MS: '1500',
        WEBHOOK_POLL_MS: '60000',
        WEBHOOK_FAILING_THRESHOLD: '5',
      },
      webhookDns: {
        register: async (host) =>
          host === 'rebind.example.com'
            ? [{ address: '93.184.215.14', family: 4 }]
            : Promise.reject(new Error(`ENOTFOUND ${host}`)),
        deliver: async () => [{ address: '10.0.0.7', family: 4 }],
      },
    });
    org = await buildOrg(app);
    other = await buildOrg(app);
    for (const o of [org, other])
      expect((await call(app, 'POST', '/v1/policies', { key: o.admin, json: BLOCK_SSN })).status).toBe(201);
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => ({ status: 200 });
  });
}

export const pump = () => app.built.services.webhookPump!;
export const scan = (o: TestOrg, text: string, options: Record<string, unknown> = {}) =>
  call(app, 'POST', '/v1/scans', {
    key: o.admin,
    json: {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text },
      context: { agent_id: 'bot-1' },
      options: { tier: 'fast', ...options },
    },
  });
export const createHook = (o: TestOrg, b: Record<string, unknown>) =>
  call(app, 'POST', '/v1/webhooks', { key: o.admin, json: { url: receiver.url, events: ['scan.blocked'], ...b } });
export const deliveries = (o: TestOrg, hookId: string, q = '') =>
  call(app, 'GET', `/v1/webhooks/${hookId}/deliveries${q}`, { key: o.admin });

/**
 * Inside a describe: `hook(b)` creates one of org's webhooks. Each test starts with none of them left,
 * so one test's pending retries never reach the next.
 */
export function useTestHooks(): (b: Record<string, unknown>) => Promise<{ id: string; secret: string }> {
  let hookIds: string[] = [];
  afterAll(async () => {
    for (const id of hookIds) await call(app, 'DELETE', `/v1/webhooks/${id}`, { key: org.admin });
  });
  const hook = async (b: Record<string, unknown>) => {
    const r = await createHook(org, b);
    expect(r.status).toBe(201);
    hookIds.push(r.body.id);
    return r.body as { id: string; secret: string };
  };
  beforeEach(async () => {
    for (const id of hookIds) await call(app, 'DELETE', `/v1/webhooks/${id}`, { key: org.admin });
    hookIds = [];
  });
  return hook;
}
