/**
 * Internal receivers (docs/webhooks.md): a real HTTPS receiver on 127.0.0.1, certified by the test CA
 * (WEBHOOK_CA_FILE), gets signed deliveries end to end once WEBHOOK_ALLOW_PRIVATE names it, and is refused
 * with the usual code without the list. Metadata addresses stay refused whatever the list says: at
 * registration, and at delivery when a listed name is rebound to one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../client/webhooks.ts';
import {
  appsClosedAfterEach,
  buildOrg,
  call,
  expectProblem,
  isolatedDatabase,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';

const SCAN_EVENTS = ['scan.allowed', 'scan.flagged', 'scan.warned', 'scan.blocked'];

const register = (app: TestApp, org: TestOrg, url: string) =>
  call(app, 'POST', '/v1/webhooks', { key: org.admin, json: { url, events: SCAN_EVENTS } });

const scan = (app: TestApp, org: TestOrg) =>
  call(app, 'POST', '/v1/scans', {
    key: org.admin,
    json: { kind: 'content', surface: 'user_message', content: { type: 'text', text: 'hello there' } },
  });

async function lastDelivery(app: TestApp, org: TestOrg, hookId: string): Promise<Record<string, unknown>> {
  await app.built.services.webhookPump!.settle();
  const r = await call(app, 'GET', `/v1/webhooks/${hookId}/deliveries`, { key: org.admin });
  expect(r.status).toBe(200);
  return r.body.data[0];
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

describe('WEBHOOK_ALLOW_PRIVATE naming a loopback receiver', () => {
  let app: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    app = await startTestApp({
      env: {
        DATABASE_URL: await isolatedDatabase(),
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1, .corp.example',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
        WEBHOOK_TIMEOUT_MS: '1500',
        WEBHOOK_POLL_MS: '60000',
      },
      webhookDns: {
        register: async (host) => {
          const table: Record<string, string> = {
            'siem.corp.example': '127.0.0.1',
            'meta.corp.example': '169.254.169.254',
          };
          if (!table[host]) throw new Error(`ENOTFOUND ${host}`);
          return [{ address: table[host], family: 4 }];
        },
        // Rebinding: the listed name now points at the metadata service.
        deliver: async () => [{ address: '169.254.169.254', family: 4 }],
      },
    });
    org = await buildOrg(app);
  });
  afterAll(async () => app?.close());

  it('registers the receiver and delivers a signed event to it', async () => {
    receiver.received.length = 0;
    const hook = await register(app, org, receiver.url);
    expect(hook.status).toBe(201);
    const s = await scan(app, org);
    expect(s.status).toBe(201);
    const [got] = await receiver.waitFor(1);
    expect(got!.headers['service-event-id']).toBe(`evt_${s.body.id.slice(5)}`);
    verifyWebhookSignature(got!.body, got!.headers['service-signature'] as string, hook.body.secret);
    expect(JSON.parse(got!.body)).toMatchObject({
      type: `scan.${s.body.decision.action}`,
      data: { scan_id: s.body.id },
    });
    expect(await lastDelivery(app, org, hook.body.id)).toMatchObject({ status: 'succeeded', error: null });
    await call(app, 'DELETE', `/v1/webhooks/${hook.body.id}`, { key: org.admin });
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.10.10/',
    'https://[fd00:ec2::254]/',
    'https://100.100.100.200/',
    'https://[fe80::1]/',
    'https://metadata.google.internal/',
    'https://meta.corp.example/',
  ])('still refuses %s at registration', async (url) => {
    expectProblem(await register(app, org, url), 400, 'webhooks.url_refused');
  });

  it('refuses at delivery a listed name that now resolves to a metadata address, and records why', async () => {
    receiver.received.length = 0;
    const hook = await register(app, org, `https://siem.corp.example:${receiver.port}/hook`);
    expect(hook.status).toBe(201);
    await scan(app, org);
    expect(await lastDelivery(app, org, hook.body.id)).toMatchObject({
      status: 'failed',
      response: null,
      error: expect.stringMatching(
        /siem\.corp\.example resolves to 169\.254\.169\.254, a cloud metadata address: refused/,
      ),
    });
    expect(receiver.received).toHaveLength(0);
    await call(app, 'DELETE', `/v1/webhooks/${hook.body.id}`, { key: org.admin });
  });
});

describe('the same receiver without the allow list, and the CA bundle', () => {
  const start = appsClosedAfterEach();

  it('refuses the loopback URL with webhooks.url_refused', async () => {
    const app = await start({ env: { WEBHOOK_DELIVERY_ENABLED: 'false' } });
    const org = await buildOrg(app);
    const r = await register(app, org, receiver.url);
    expectProblem(r, 400, 'webhooks.url_refused');
    expect(r.body.detail).toBe('127.0.0.1 is a loopback address');
  });

  it('fails the delivery on the certificate without WEBHOOK_CA_FILE', async () => {
    const app = await start({
      env: { DATABASE_URL: await isolatedDatabase(), WEBHOOK_ALLOW_PRIVATE: '127.0.0.1', WEBHOOK_POLL_MS: '60000' },
    });
    const org = await buildOrg(app);
    receiver.received.length = 0;
    const hook = await register(app, org, receiver.url);
    expect(hook.status).toBe(201);
    await scan(app, org);
    expect(await lastDelivery(app, org, hook.body.id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/certificate/i),
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('delivers with WEBHOOK_CA_ONLY, the bundle as the only roots', async () => {
    const app = await start({
      env: {
        DATABASE_URL: await isolatedDatabase(),
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
        WEBHOOK_CA_ONLY: 'true',
        WEBHOOK_POLL_MS: '60000',
      },
    });
    const org = await buildOrg(app);
    receiver.received.length = 0;
    const hook = await register(app, org, receiver.url);
    await scan(app, org);
    await receiver.waitFor(1);
    expect(await lastDelivery(app, org, hook.body.id)).toMatchObject({ status: 'succeeded' });
  });
});
