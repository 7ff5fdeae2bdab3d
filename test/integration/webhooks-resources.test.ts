import { describe, expect, it } from 'vitest';
import { buildKeyring } from '../../lib/crypto.ts';
import { decryptSecret } from '../../services/webhooks/secrets.ts';
import { buildApiKey, call, expectProblem, TEST_MASTER_SECRET } from '../support/harness.ts';
import {
  app,
  clock,
  createHook,
  deliveries,
  org,
  other,
  pump,
  receiver,
  scan,
  SSN_TEXT,
  useWebhooksApp,
} from './webhooks-fixture.ts';

useWebhooksApp();

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
