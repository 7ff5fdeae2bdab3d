import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../client/webhooks.ts';
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

  it('an uncaptured scan’s event carries its findings masked, even with include_content', async () => {
    await hook({ events: ['scan.blocked'], include_content: true });
    const s = await scan(org, SSN_TEXT);
    expect(s.body.decision.action).toBe('blocked');
    expect(JSON.stringify(s.body.findings)).toContain('536-22-1234');
    const [got] = await receiver.waitFor(1);
    await pump().settle();
    const env = JSON.parse(got!.body);
    expect(got!.body).not.toContain('536-22-1234');
    expect(env.data).not.toHaveProperty('content');
    expect(env.data.content_stored).toBe(false);
    expect(env.data.findings).toEqual(
      (await call(app, 'GET', `/v1/scans/${s.body.id}`, { key: org.admin })).body.findings,
    );
    expect(env.data.findings.flatMap((f: { items: { text: string }[] }) => f.items.map((i) => i.text))).toContain(
      '[US_SSN]',
    );
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
