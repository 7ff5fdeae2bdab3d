import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildKeyring } from '../../lib/crypto.ts';
import { verifyWebhookSignature } from '../../client/index.ts';
import { RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { decryptSecret } from '../../services/webhooks/secrets.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  isolatedDatabase,
  startTestApp,
  TEST_MASTER_SECRET,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';

const SSN_TEXT = 'my ssn is 536-22-1234 please file it';
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

let clock: ManualClock;
let app: TestApp;
let receiver: Receiver;
let org: TestOrg;
let other: TestOrg;

const pump = () => app.built.services.webhookPump!;
const scan = (o: TestOrg, text: string, options: Record<string, unknown> = {}) =>
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
const createHook = (o: TestOrg, b: Record<string, unknown>) =>
  call(app, 'POST', '/v1/webhooks', { key: o.admin, json: { url: receiver.url, events: ['scan.blocked'], ...b } });
const deliveries = (o: TestOrg, hookId: string, q = '') =>
  call(app, 'GET', `/v1/webhooks/${hookId}/deliveries${q}`, { key: o.admin });

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T00:00:00.000Z');
  receiver = await startReceiver();
  app = await startTestApp({
    clock,
    env: {
      DATABASE_URL: await isolatedDatabase(),
      WEBHOOK_UNSAFE_ALLOW_HOSTS: '127.0.0.1',
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

describe('webhook resources', () => {
  it('creates with the secret once, stores it sealed, reads without it, lists, deletes, and audits each change', async () => {
    const r = await createHook(org, {
      events: ['scan.blocked', 'scan.flagged', 'scan.blocked'],
      description: 'SIEM',
      include_content: true,
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/webhooks/${r.body.id}`);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-HJKMNP-TV-Z]{26}$/),
      url: receiver.url,
      description: 'SIEM',
      events: ['scan.blocked', 'scan.flagged'],
      include_content: true,
      active: true,
      last_failure_at: null,
      created_at: clock.now().toISOString(),
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{43}$/),
    });
    const { rows } = await app.db.query('SELECT secret_enc FROM webhooks WHERE org_id = $1 AND id = $2', [
      org.orgId,
      r.body.id,
    ]);
    expect(rows[0].secret_enc.includes(Buffer.from(r.body.secret))).toBe(false);
    expect(
      decryptSecret(
        buildKeyring(Buffer.from(TEST_MASTER_SECRET)).webhookSecretEncryption,
        org.orgId,
        r.body.id,
        rows[0].secret_enc,
      ),
    ).toBe(r.body.secret);

    const got = await call(app, 'GET', `/v1/webhooks/${r.body.id}`, { key: org.admin });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const { secret: _s, ...shown } = r.body;
    expect(got.body).toEqual(shown);

    const second = await createHook(org, { events: ['scan.allowed'] });
    const page1 = await call(app, 'GET', '/v1/webhooks?limit=1', { key: org.admin });
    expect(page1.body.data.map((w: { id: string }) => w.id)).toEqual([second.body.id]);
    expect(page1.body.data[0]).not.toHaveProperty('secret');
    const page2 = await call(app, 'GET', `/v1/webhooks?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`, {
      key: org.admin,
    });
    expect(page2.body.data.map((w: { id: string }) => w.id)).toContain(r.body.id);
    expectProblem(
      await call(app, 'GET', '/v1/webhooks?cursor=bogus', { key: org.admin }),
      400,
      'webhooks.invalid_cursor',
    );

    for (const id of [r.body.id, second.body.id])
      expect((await call(app, 'DELETE', `/v1/webhooks/${id}`, { key: org.admin })).status).toBe(204);
    expectProblem(await call(app, 'GET', `/v1/webhooks/${r.body.id}`, { key: org.admin }), 404, 'webhooks.not_found');
    expectProblem(
      await call(app, 'DELETE', `/v1/webhooks/${r.body.id}`, { key: org.admin }),
      404,
      'webhooks.not_found',
    );
    const audit = await app.db.query(
      `SELECT change_summary FROM audit_events WHERE org_id = $1 AND resource_id = $2 ORDER BY id`,
      [org.orgId, r.body.id],
    );
    expect(audit.rows.map((a) => a.change_summary)).toEqual([
      expect.stringMatching(
        /^created webhook to https:\/\/127\.0\.0\.1:\d+\/hook for \[scan\.blocked, scan\.flagged\] with content$/,
      ),
      expect.stringMatching(/^deleted webhook/),
    ]);
    expect(JSON.stringify(audit.rows)).not.toContain(r.body.secret);
  });

  it('an Idempotency-Key replays the create (secret included) from a sealed record that does not hold the secret in clear', async () => {
    const headers = { 'idempotency-key': `wh-${Date.now()}` };
    const first = await call(app, 'POST', '/v1/webhooks', {
      key: org.admin,
      json: { url: receiver.url, events: ['scan.blocked'] },
      headers,
    });
    const again = await call(app, 'POST', '/v1/webhooks', {
      key: org.admin,
      json: { url: receiver.url, events: ['scan.blocked'] },
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const { rows } = await app.db.query('SELECT response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2', [
      org.orgId,
      headers['idempotency-key'],
    ]);
    expect(rows[0].response_body.includes(Buffer.from(first.body.secret))).toBe(false);
    expect(rows[0].response_body.includes(Buffer.from(first.body.id))).toBe(false);
    await call(app, 'DELETE', `/v1/webhooks/${first.body.id}`, { key: org.admin });
  });

  it.each([
    ['no url', { url: undefined }, 400, 'request.validation_failed'],
    ['no events', { events: undefined }, 400, 'request.validation_failed'],
    ['empty events', { events: [] }, 400, 'request.validation_failed'],
    ['unknown event', { events: ['scan.exploded'] }, 400, 'request.validation_failed'],
    ['description 501', { description: 'x'.repeat(501) }, 400, 'request.validation_failed'],
    ['unknown field', { secret: 'mine' }, 400, 'request.validation_failed'],
    ['http', { url: 'http://93.184.215.14/hook' }, 400, 'webhooks.url_invalid'],
    ['credentials', { url: 'https://user:pw@93.184.215.14/hook' }, 400, 'webhooks.url_invalid'],
    ['not a url', { url: 'https://' }, 400, 'webhooks.url_invalid'],
    ['too long', { url: `https://93.184.215.14/${'a'.repeat(2100)}` }, 400, 'webhooks.url_invalid'],
    ['RFC 1918', { url: 'https://10.1.2.3/hook' }, 400, 'webhooks.url_refused'],
    ['loopback not allow-listed', { url: 'https://127.0.0.2/hook' }, 400, 'webhooks.url_refused'],
    ['decimal loopback', { url: 'https://2130706434/hook' }, 400, 'webhooks.url_refused'],
    ['hex private', { url: 'https://0x0a000001/hook' }, 400, 'webhooks.url_refused'],
    ['octal private', { url: 'https://0300.0250.0.1/hook' }, 400, 'webhooks.url_refused'],
    ['metadata ip', { url: 'https://169.254.169.254/latest' }, 400, 'webhooks.url_refused'],
    ['metadata name', { url: 'https://metadata.google.internal/x' }, 400, 'webhooks.url_refused'],
    ['ipv6 metadata', { url: 'https://[fd00:ec2::254]/x' }, 400, 'webhooks.url_refused'],
    ['ipv4-mapped ipv6', { url: 'https://[::ffff:8.8.8.8]/x' }, 400, 'webhooks.url_refused'],
    ['CGNAT', { url: 'https://100.64.0.1/x' }, 400, 'webhooks.url_refused'],
    ['localhost', { url: 'https://localhost/x' }, 400, 'webhooks.url_refused'],
    ['unresolvable', { url: 'https://no-such-host.example.org/x' }, 400, 'webhooks.url_unresolvable'],
  ])('refuses %s', async (_name, over, status, code) => {
    const before = (await app.db.query('SELECT count(*)::int AS n FROM webhooks WHERE org_id = $1', [org.orgId]))
      .rows[0].n;
    const r = await createHook(org, over);
    expectProblem(r, status, code);
    if (code.startsWith('webhooks.url')) expect(r.body.errors).toEqual([{ path: 'url', message: expect.any(String) }]);
    expect(
      (await app.db.query('SELECT count(*)::int AS n FROM webhooks WHERE org_id = $1', [org.orgId])).rows[0].n,
    ).toBe(before);
  });

  it('accepts public addresses and host names that resolve only to public addresses', async () => {
    for (const url of [
      'https://93.184.215.14/hook',
      'https://[2606:4700:4700::1111]:8443/x',
      'https://rebind.example.com/hook',
    ]) {
      const r = await createHook(org, { url });
      expect(r.status, url).toBe(201);
      await call(app, 'DELETE', `/v1/webhooks/${r.body.id}`, { key: org.admin });
    }
  });

  it('scopes: webhooks:read reads, only webhooks:write changes', async () => {
    const hook = (await createHook(org, {})).body;
    const reader = await buildApiKey(app, org.orgId, { scopes: ['webhooks:read'] });
    expect((await call(app, 'GET', `/v1/webhooks/${hook.id}`, { key: reader.secret })).status).toBe(200);
    expect((await call(app, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: reader.secret })).status).toBe(200);
    expectProblem(
      await call(app, 'POST', '/v1/webhooks', {
        key: reader.secret,
        json: { url: receiver.url, events: ['scan.blocked'] },
      }),
      403,
      'auth.insufficient_scope',
    );
    expectProblem(
      await call(app, 'DELETE', `/v1/webhooks/${hook.id}`, { key: reader.secret }),
      403,
      'auth.insufficient_scope',
    );
    expectProblem(
      await call(app, 'POST', `/v1/webhooks/${hook.id}:rotate-secret`, { key: reader.secret, json: {} }),
      403,
      'auth.insufficient_scope',
    );
    expectProblem(await call(app, 'GET', '/v1/webhooks', {}), 401, 'auth.unauthenticated');
    await call(app, 'DELETE', `/v1/webhooks/${hook.id}`, { key: org.admin });
  });

  it('another organization can neither read nor change a webhook or its deliveries', async () => {
    const hook = (await createHook(org, {})).body;
    await scan(org, SSN_TEXT);
    await pump().settle();
    const [delivery] = (await deliveries(org, hook.id)).body.data;
    expect(delivery.status).toBe('succeeded');
    expectProblem(await call(app, 'GET', `/v1/webhooks/${hook.id}`, { key: other.admin }), 404, 'webhooks.not_found');
    expectProblem(
      await call(app, 'DELETE', `/v1/webhooks/${hook.id}`, { key: other.admin }),
      404,
      'webhooks.not_found',
    );
    expectProblem(
      await call(app, 'POST', `/v1/webhooks/${hook.id}:rotate-secret`, { key: other.admin, json: {} }),
      404,
      'webhooks.not_found',
    );
    expectProblem(await deliveries(other, hook.id), 404, 'webhooks.not_found');
    expectProblem(
      await call(app, 'POST', `/v1/webhook-deliveries/${delivery.id}:redeliver`, { key: other.admin, json: {} }),
      404,
      'webhooks.delivery_not_found',
    );
    expect(
      (await call(app, 'GET', '/v1/webhooks', { key: other.admin })).body.data.map((w: { id: string }) => w.id),
    ).not.toContain(hook.id);
    // Other's scans never reach org's webhook.
    receiver.received.length = 0;
    await scan(other, SSN_TEXT);
    await pump().settle();
    expect(receiver.received).toHaveLength(0);
    expect(await call(app, 'GET', `/v1/webhooks/${hook.id}`, { key: org.admin })).toMatchObject({ status: 200 });
    await call(app, 'DELETE', `/v1/webhooks/${hook.id}`, { key: org.admin });
  });
});

describe('deliveries', () => {
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

  it('a scan sends a signed envelope at once, only to webhooks subscribed to its action; data has no content unless include_content', async () => {
    const blocked = await hook({ events: ['scan.blocked'] });
    const allowed = await hook({ events: ['scan.allowed'] });
    const full = await hook({ events: ['scan.blocked'], include_content: true });
    const s = await scan(org, SSN_TEXT, { capture: true });
    expect(s.body.decision.action).toBe('blocked');
    const got = await receiver.waitFor(2);
    await pump().settle();
    expect(receiver.received).toHaveLength(2);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['service-api-version']).toBe('2026-11-01');
      expect(r.headers['service-event-id']).toBe(`evt_${s.body.id.slice(5)}`);
      expect(r.headers.authorization).toBeUndefined();
    }
    const bySecret = (h: { secret: string }) =>
      got.find((r) => {
        try {
          verifyWebhookSignature(r.body, r.headers['service-signature'] as string, h.secret, { now: clock.now() });
          return true;
        } catch {
          return false;
        }
      });
    const compact = bySecret(blocked)!;
    const withContent = bySecret(full)!;
    expect(compact).toBeDefined();
    expect(withContent).toBeDefined();
    expect(bySecret(allowed)).toBeUndefined();
    const env = JSON.parse(compact.body);
    expect(env).toEqual({
      type: 'scan.blocked',
      id: `evt_${s.body.id.slice(5)}`,
      created: s.body.created,
      api_version: '2026-11-01',
      data: expect.any(Object),
    });
    expect(env.data).toMatchObject({
      scan_id: s.body.id,
      action: 'blocked',
      surface: 'user_message',
      tier: 'fast',
      decision: s.body.decision,
      context: { agent_id: 'bot-1' },
      content_stored: true,
    });
    expect(env.data.detectors).toContainEqual({
      detector: 'pii',
      findings: expect.any(Number),
      labels: expect.arrayContaining(['US_SSN']),
    });
    expect(compact.body).not.toContain('536-22-1234');
    expect(env.data).not.toHaveProperty('content');
    const envFull = JSON.parse(withContent.body);
    expect(envFull.data.content).toEqual({ type: 'text', text: SSN_TEXT });
    expect(envFull.data.findings).toEqual(s.body.findings);

    const list = await deliveries(org, blocked.id);
    expect(list.body.data).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        webhook_id: blocked.id,
        event_id: env.id,
        event_type: 'scan.blocked',
        status: 'succeeded',
        attempt: 1,
        next_attempt_at: null,
        response: { status_code: 200, duration_ms: expect.any(Number), body_preview: '' },
        error: null,
        created_at: s.body.created,
        delivered_at: clock.now().toISOString(),
        redelivery_of: null,
      },
    ]);
    expect((await deliveries(org, allowed.id)).body.data).toEqual([]);
  });

  it('a rule’s then.notify sends to a webhook whatever it subscribes to', async () => {
    const h = await hook({ events: ['scan.allowed'] });
    const p = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      json: {
        name: 'notify',
        rules: [
          {
            name: 'ssn',
            when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
            then: { action: 'flagged', notify: [h.id] },
          },
        ],
        default_action: 'allowed',
      },
    });
    const s = await scan(org, SSN_TEXT, { policy_id: p.body.id });
    expect(s.body.decision.action).toBe('flagged');
    const [r] = await receiver.waitFor(1);
    expect(JSON.parse(r!.body)).toMatchObject({ type: 'scan.flagged', data: { scan_id: s.body.id } });
    await call(app, 'DELETE', `/v1/policies/${p.body.id}`, { key: org.admin });
  });

  it('follows the exact retry schedule to dead_lettered, recording each response; webhook.failing fires once at the threshold', async () => {
    receiver.respond = (r) => (r.path === '/watch' ? { status: 204 } : { status: 500, body: 'é'.repeat(3000) });
    const h = await hook({ events: ['scan.blocked'] });
    const watcher = await hook({ url: receiver.url.replace('/hook', '/watch'), events: ['webhook.failing'] });
    const s = await scan(org, SSN_TEXT);
    const t0 = clock.now().getTime();
    await receiver.waitFor(1);
    await pump().settle();
    const seen = () => receiver.received.filter((r) => r.path === '/hook');
    expect(seen()).toHaveLength(1);
    let [d] = (await deliveries(org, h.id)).body.data;
    expect(d).toMatchObject({
      status: 'failed',
      attempt: 1,
      next_attempt_at: new Date(t0 + 30_000).toISOString(),
      error: 'receiver answered 500',
      delivered_at: null,
    });
    expect(d.response.status_code).toBe(500);
    expect(Buffer.byteLength(d.response.body_preview)).toBeLessThanOrEqual(1024);
    expect(d.response.body_preview).toMatch(/^é+$/);

    for (let n = 2; n <= 7; n++) {
      clock.set(new Date(t0 + RETRY_SCHEDULE_MS[n - 1]! - 1_000));
      await pump().settle();
      expect(seen(), `attempt ${n} not before its time`).toHaveLength(n - 1);
      clock.set(new Date(t0 + RETRY_SCHEDULE_MS[n - 1]!));
      await pump().settle();
      expect(seen(), `attempt ${n} at its time`).toHaveLength(n);
      [d] = (await deliveries(org, h.id)).body.data;
      if (n < 7)
        expect(d).toMatchObject({
          status: 'failed',
          attempt: n,
          next_attempt_at: new Date(t0 + RETRY_SCHEDULE_MS[n]!).toISOString(),
        });
    }
    expect(d).toMatchObject({ status: 'dead_lettered', attempt: 7, next_attempt_at: null, delivered_at: null });
    // Every attempt carried the same event and body, signed afresh.
    const bodies = new Set(seen().map((r) => r.body));
    expect(bodies.size).toBe(1);
    expect(new Set(seen().map((r) => r.headers['service-event-id']))).toEqual(new Set([`evt_${s.body.id.slice(5)}`]));
    clock.advance(7 * 86_400_000);
    await pump().settle();
    expect(seen()).toHaveLength(7);

    // The 5th consecutive failure crossed the threshold: one webhook.failing, to the subscriber.
    const failing = receiver.received.filter((r) => r.path === '/watch');
    expect(failing).toHaveLength(1);
    expect(JSON.parse(failing[0]!.body)).toMatchObject({
      type: 'webhook.failing',
      data: { webhook_id: h.id, consecutive_failures: 5, threshold: 5, last_status_code: 500 },
    });
    expect((await call(app, 'GET', `/v1/webhooks/${h.id}`, { key: org.admin })).body.last_failure_at).toBe(
      new Date(t0 + RETRY_SCHEDULE_MS[6]).toISOString(),
    );
    expect((await deliveries(org, watcher.id, '?status=succeeded')).body.data).toHaveLength(1);
    expect((await deliveries(org, h.id, '?status=dead_lettered')).body.data).toHaveLength(1);
    expect((await deliveries(org, h.id, '?status=succeeded')).body.data).toHaveLength(0);

    // Redelivery: a new chain for the same event, from attempt 1.
    receiver.respond = () => ({ status: 200 });
    const re = await call(app, 'POST', `/v1/webhook-deliveries/${d.id}:redeliver`, { key: org.admin, json: {} });
    expect(re.status).toBe(202);
    expect(re.body).toMatchObject({
      webhook_id: h.id,
      event_id: d.event_id,
      event_type: 'scan.blocked',
      status: 'pending',
      attempt: 1,
      redelivery_of: d.id,
    });
    await pump().settle();
    const after = (await deliveries(org, h.id)).body.data;
    expect(after[0]).toMatchObject({ id: re.body.id, status: 'succeeded', attempt: 1 });
    expect(seen().at(-1)!.body).toBe([...bodies][0]);
  });

  it('redelivery of a delivery still retrying is refused; unknown ids are 404', async () => {
    receiver.respond = () => ({ status: 503 });
    const h = await hook({ events: ['scan.blocked'] });
    await scan(org, SSN_TEXT);
    await receiver.waitFor(1);
    await pump().settle();
    const [d] = (await deliveries(org, h.id)).body.data;
    expect(d.status).toBe('failed');
    expectProblem(
      await call(app, 'POST', `/v1/webhook-deliveries/${d.id}:redeliver`, { key: org.admin, json: {} }),
      409,
      'webhooks.delivery_in_progress',
    );
    expectProblem(
      await call(app, 'POST', `/v1/webhook-deliveries/whd_00000000000000000000000000:redeliver`, {
        key: org.admin,
        json: {},
      }),
      404,
      'webhooks.delivery_not_found',
    );
    expectProblem(
      await call(app, 'POST', `/v1/webhook-deliveries/nope:redeliver`, { key: org.admin, json: {} }),
      400,
      'request.validation_failed',
    );
    // Deleting the webhook drops its pending retries: nothing more is sent.
    await call(app, 'DELETE', `/v1/webhooks/${h.id}`, { key: org.admin });
    clock.advance(60_000);
    await pump().settle();
    expect(receiver.received).toHaveLength(1);
  });

  it('timeouts, redirects and connection errors are failed attempts, retried', async () => {
    const h = await hook({ events: ['scan.blocked'] });
    receiver.respond = () => ({ status: 200, delayMs: 5_000 });
    await scan(org, SSN_TEXT);
    await pump().settle();
    let [d] = (await deliveries(org, h.id)).body.data;
    expect(d).toMatchObject({
      status: 'failed',
      attempt: 1,
      response: null,
      error: expect.stringMatching(/timed out after 1500 ms/),
    });
    receiver.respond = () => ({ status: 302, headers: { location: 'https://127.0.0.1:1/elsewhere' } });
    clock.advance(30_000);
    await pump().settle();
    [d] = (await deliveries(org, h.id)).body.data;
    expect(d).toMatchObject({ status: 'failed', attempt: 2, response: { status_code: 302 } });
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
  });

  it('a signing secret that no longer decrypts (master secret changed) is a failed attempt, not a stuck row', async () => {
    const h = await hook({ events: ['scan.blocked'] });
    await app.db.query(
      `UPDATE webhooks SET secret_enc = set_byte(secret_enc, 20, get_byte(secret_enc, 20) # 1) WHERE org_id = $1 AND id = $2`,
      [org.orgId, h.id],
    );
    await scan(org, SSN_TEXT);
    await pump().settle();
    const [d] = (await deliveries(org, h.id)).body.data;
    expect(d).toMatchObject({
      status: 'failed',
      attempt: 1,
      response: null,
      error: expect.stringMatching(/cannot be decrypted/),
    });
    expect(receiver.received).toHaveLength(0);
    // Rotating gives the webhook a secret that works again.
    await call(app, 'POST', `/v1/webhooks/${h.id}:rotate-secret`, { key: org.admin, json: { grace_seconds: 0 } });
    clock.advance(30_000);
    await pump().settle();
    expect((await deliveries(org, h.id)).body.data[0]).toMatchObject({ status: 'succeeded', attempt: 2 });
  });

  it('refuses at delivery time an address the host name now resolves to (DNS rebinding)', async () => {
    const h = await hook({ url: `https://rebind.example.com:${receiver.port}/hook` });
    await scan(org, SSN_TEXT);
    await pump().settle();
    const [d] = (await deliveries(org, h.id)).body.data;
    expect(d).toMatchObject({
      status: 'failed',
      attempt: 1,
      response: null,
      error: expect.stringMatching(/10\.0\.0\.7.*private.*refused/),
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('during a rotation grace period deliveries carry a signature for each valid secret', async () => {
    const h = await hook({ events: ['scan.blocked'] });
    const bad = await call(app, 'POST', `/v1/webhooks/${h.id}:rotate-secret`, {
      key: org.admin,
      json: { grace_seconds: 604_801 },
    });
    expectProblem(bad, 400, 'request.validation_failed');
    const rot = await call(app, 'POST', `/v1/webhooks/${h.id}:rotate-secret`, { key: org.admin, json: {} });
    expect(rot.status).toBe(200);
    expect(rot.body).toEqual({
      webhook_id: h.id,
      secret: expect.stringMatching(/^whsec_/),
      grace_expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString(),
    });
    expect(rot.body.secret).not.toBe(h.secret);
    await scan(org, SSN_TEXT);
    const [r1] = await receiver.waitFor(1);
    const sig1 = r1!.headers['service-signature'] as string;
    expect(sig1.match(/v1=/g)).toHaveLength(2);
    for (const secret of [h.secret, rot.body.secret])
      verifyWebhookSignature(r1!.body, sig1, secret, { now: clock.now() });
    // After the grace period only the new secret signs.
    clock.advance(86_400_000 + 1_000);
    await scan(org, SSN_TEXT);
    const [, r2] = await receiver.waitFor(2);
    const sig2 = r2!.headers['service-signature'] as string;
    expect(sig2.match(/v1=/g)).toHaveLength(1);
    verifyWebhookSignature(r2!.body, sig2, rot.body.secret, { now: clock.now() });
    expect(() => verifyWebhookSignature(r2!.body, sig2, h.secret, { now: clock.now() })).toThrow(/signature/i);
    // grace_seconds 0 retires the old secret at once.
    const rot0 = await call(app, 'POST', `/v1/webhooks/${h.id}:rotate-secret`, {
      key: org.admin,
      json: { grace_seconds: 0 },
    });
    await scan(org, SSN_TEXT);
    const [, , r3] = await receiver.waitFor(3);
    expect((r3!.headers['service-signature'] as string).match(/v1=/g)).toHaveLength(1);
    verifyWebhookSignature(r3!.body, r3!.headers['service-signature'] as string, rot0.body.secret, {
      now: clock.now(),
    });
    const audit = await app.db.query(
      `SELECT change_summary FROM audit_events WHERE org_id = $1 AND resource_id = $2 AND change_summary LIKE 'rotated%'`,
      [org.orgId, h.id],
    );
    expect(audit.rows).toHaveLength(2);
  });

  it('deliveries list filters by status and since, pages with a cursor, and 404s for unknown webhooks', async () => {
    const h = await hook({ events: ['scan.blocked', 'scan.allowed'] });
    for (let i = 0; i < 3; i++) {
      await scan(org, i === 1 ? SSN_TEXT : 'hello there');
      clock.advance(1_000);
    }
    await receiver.waitFor(3);
    await pump().settle();
    const all = (await deliveries(org, h.id)).body.data;
    expect(all).toHaveLength(3);
    expect(all.map((d: { event_type: string }) => d.event_type)).toEqual([
      'scan.allowed',
      'scan.blocked',
      'scan.allowed',
    ]);
    const p1 = await deliveries(org, h.id, '?limit=2');
    expect(p1.body.data).toHaveLength(2);
    const p2 = await deliveries(org, h.id, `?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data.map((d: { id: string }) => d.id)).toEqual([all[2].id]);
    expect(p2.body.next_cursor).toBeNull();
    const since = (await deliveries(org, h.id, `?since=${encodeURIComponent(all[1].created_at)}`)).body.data;
    expect(since.map((d: { id: string }) => d.id)).toEqual([all[0].id, all[1].id]);
    expectProblem(await deliveries(org, h.id, '?status=lost'), 400, 'request.validation_failed');
    expectProblem(await deliveries(org, h.id, '?cursor=x'), 400, 'webhook_deliveries.invalid_cursor');
    expectProblem(await deliveries(org, 'wh_00000000000000000000000000'), 404, 'webhooks.not_found');
  });
});
