import { describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { call, expectProblem } from '../support/harness.ts';
import {
  app,
  clock,
  deliveries,
  org,
  pump,
  receiver,
  scan,
  SSN_TEXT,
  useTestHooks,
  useWebhooksApp,
} from './webhooks-fixture.ts';

useWebhooksApp();

describe('deliveries', () => {
  const hook = useTestHooks();

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
});
