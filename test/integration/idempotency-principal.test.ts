import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayBinding } from '../../services/idempotency.ts';
import { buildKeyring, unseal } from '../../lib/crypto.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  TEST_MASTER_SECRET,
  type Reply,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';

// Idempotency records belong to the principal (API key) that made them: a stored response may hold
// a one-time secret, so another credential of the same organization must never get it replayed.

let app: TestApp;
let receiver: Receiver;
let org: TestOrg;
/** A second admin key of the same organization: every scope, another principal. */
let other: { id: string; secret: string };

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({
    // Webhooks point at the local receiver (loopback allow-listed for tests); no delivery pump runs.
    env: { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1', WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_DELIVERY_ENABLED: 'false' },
    webhookDns: {
      register: async (host) => Promise.reject(new Error(`ENOTFOUND ${host}`)),
      deliver: async (host) => Promise.reject(new Error(`ENOTFOUND ${host}`)),
    },
  });
  org = await buildOrg(app);
  const k = await buildApiKey(app, org.orgId, { name: 'second admin', scopes: ['admin'] });
  other = { id: k.key.id, secret: k.secret };
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const post = (path: string, key: string, idem: string, json?: unknown) =>
  call(app, 'POST', path, { key, json, headers: { 'idempotency-key': idem } });
const record = async (idem: string) =>
  (
    await app.db.query(
      'SELECT principal_id, state, response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2',
      [org.orgId, idem],
    )
  ).rows[0];
const keyCount = async () =>
  (await app.db.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [org.orgId])).rows[0].n as number;

/** The reply is a 409 that says nothing of the stored response (no secret, no id, no replay header). */
function expectRefused(r: Reply, first: Reply, detail: RegExp): void {
  expectProblem(r, 409, 'idempotency.key_reused');
  expect(r.body.detail).toMatch(detail);
  expect(r.headers.get('idempotent-replayed')).toBeNull();
  expect(r.text).not.toContain(first.body.secret);
  // (A webhook rotation's id is the path's own, which the problem's `instance` names anyway.)
  if (first.body.id) expect(r.text).not.toContain(first.body.id);
}

interface SecretRoute {
  label: string;
  /** Path and body of the request, after any setup (the key to rotate, the webhook). */
  prepare(): Promise<{ path: string; body: unknown }>;
  status: number;
}

const SECRET_ROUTES: SecretRoute[] = [
  {
    label: 'POST /v1/api-keys',
    prepare: async () => ({ path: '/v1/api-keys', body: { name: 'ci', scopes: ['scans:read'] } }),
    status: 201,
  },
  {
    label: 'POST /v1/api-keys/{id}:rotate',
    prepare: async () => ({
      path: `/v1/api-keys/${(await buildApiKey(app, org.orgId, { scopes: ['scans:read'] })).key.id}:rotate`,
      body: undefined,
    }),
    status: 201,
  },
  {
    label: 'POST /v1/webhooks',
    prepare: async () => ({ path: '/v1/webhooks', body: { url: receiver.url, events: ['scan.blocked'] } }),
    status: 201,
  },
  {
    label: 'POST /v1/webhooks/{id}:rotate-secret',
    prepare: async () => {
      const hook = await call(app, 'POST', '/v1/webhooks', {
        key: org.admin,
        json: { url: receiver.url, events: ['scan.blocked'] },
      });
      expect(hook.status).toBe(201);
      return { path: `/v1/webhooks/${hook.body.id}:rotate-secret`, body: { grace_seconds: 60 } };
    },
    status: 200,
  },
];

describe('a one-time secret is replayed only to the principal that asked for it', () => {
  it.each(SECRET_ROUTES)(
    '$label: another key of the organization gets 409, the sender its replay',
    async ({ label, prepare, status }) => {
      const { path, body } = await prepare();
      const idem = `secret-${label}`;
      const first = await post(path, org.admin, idem, body);
      expect(first.status).toBe(status);
      expect(first.body.secret).toMatch(/^(sk_live|whsec)_/);
      expect((await record(idem)).principal_id).toBe(org.adminId);

      const keysBefore = await keyCount();
      const stolen = await post(path, other.secret, idem, body);
      expectRefused(stolen, first, /another credential/);
      // The same answer whatever the body: the 409 is no oracle for what the first request sent.
      const otherBody = await post(path, other.secret, idem, { name: 'guess', scopes: ['scans:read'] });
      expectRefused(otherBody, first, /another credential/);
      expect(otherBody.body.detail).toBe(stolen.body.detail);
      expect(await keyCount()).toBe(keysBefore);

      const again = await post(path, org.admin, idem, body);
      expect(again.status).toBe(status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
    },
  );

  it('the sealed replay opens only under its own principal binding', async () => {
    const first = await post('/v1/api-keys', org.admin, 'sealed-binding', { name: 'b', scopes: ['scans:read'] });
    const { response_body: sealed } = await record('sealed-binding');
    const key = buildKeyring(Buffer.from(TEST_MASTER_SECRET)).idempotencyResponse;
    expect(unseal(key, sealed, replayBinding(org.orgId, org.adminId, 'sealed-binding')).toString()).toBe(first.text);
    expect(() => unseal(key, sealed, replayBinding(org.orgId, other.id, 'sealed-binding'))).toThrow();
    // The binding before principals: organization and key only.
    expect(() => unseal(key, sealed, `idempotency/${org.orgId}/sealed-binding`)).toThrow();
  });

  it('another principal never takes over a claim whose lock lapsed; its owner still does', async () => {
    const body = { name: 'lapsed', scopes: ['scans:read'] };
    const first = await post('/v1/api-keys', org.admin, 'lapsed', body);
    await app.db.query(
      `UPDATE idempotency_keys SET state = 'in_progress', locked_until = now() - interval '1 second' WHERE org_id = $1 AND key = $2`,
      [org.orgId, 'lapsed'],
    );
    const before = await keyCount();
    expectRefused(await post('/v1/api-keys', other.secret, 'lapsed', body), first, /another credential/);
    expect(await keyCount()).toBe(before);
    expect((await record('lapsed')).principal_id).toBe(org.adminId);
    expect((await post('/v1/api-keys', org.admin, 'lapsed', body)).status).toBe(201);
  });

  it('a streamed scan records its replay under the same binding', async () => {
    const body = {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text: 'stream me once' },
      options: { tier: 'fast' },
    };
    const streamed = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: body,
      headers: { 'idempotency-key': 'stream-bound', accept: 'text/event-stream' },
    });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const decision = /event: decision\ndata: ([^\n]*)/.exec(streamed.text);
    expect(decision, streamed.text).not.toBeNull();
    expect((await record('stream-bound')).principal_id).toBe(org.adminId);
    const stolen = await call(app, 'POST', '/v1/scans', {
      key: other.secret,
      json: body,
      headers: { 'idempotency-key': 'stream-bound' },
    });
    expectProblem(stolen, 409, 'idempotency.key_reused');
    expect(stolen.text).not.toContain(JSON.parse(decision![1]!).id);
    const replay = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: body,
      headers: { 'idempotency-key': 'stream-bound' },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(JSON.parse(decision![1]!));
  });
});

describe('records from before the principal binding (principal_id NULL)', () => {
  // What migration 0008 leaves behind: rows with no principal, sealed under the old binding or, older
  // still, in clear.
  const unbind = (idem: string, clearBody?: string) =>
    app.db.query(
      `UPDATE idempotency_keys SET principal_id = NULL${clearBody ? ', response_body = $3' : ''} WHERE org_id = $1 AND key = $2`,
      clearBody ? [org.orgId, idem, Buffer.from(clearBody)] : [org.orgId, idem],
    );

  it.each([
    ['sealed', false],
    ['stored in clear', true],
  ])(
    'a %s one is replayed to nobody, its sender included, and not run again until it expires',
    async (_label, clear) => {
      const idem = `legacy-${clear ? 'clear' : 'sealed'}`;
      const body = { name: idem, scopes: ['scans:read'] };
      const first = await post('/v1/api-keys', org.admin, idem, body);
      await unbind(idem, clear ? first.text : undefined);
      const before = await keyCount();
      for (const secret of [org.admin, other.secret])
        expectRefused(await post('/v1/api-keys', secret, idem, body), first, /before keys were bound/);
      expect(await keyCount()).toBe(before);

      // Past its retention the key is free again: the request runs anew, now bound to its sender.
      await app.db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE org_id = $1 AND key = $2`,
        [org.orgId, idem],
      );
      const fresh = await post('/v1/api-keys', org.admin, idem, body);
      expect(fresh.status).toBe(201);
      expect(fresh.body.id).not.toBe(first.body.id);
      expect((await record(idem)).principal_id).toBe(org.adminId);
    },
  );

  it('an unbound in-progress claim whose lock lapsed is not taken over', async () => {
    const body = { name: 'legacy-running', scopes: ['scans:read'] };
    const first = await post('/v1/api-keys', org.admin, 'legacy-running', body);
    await unbind('legacy-running');
    await app.db.query(
      `UPDATE idempotency_keys SET state = 'in_progress', locked_until = now() - interval '1 second' WHERE org_id = $1 AND key = $2`,
      [org.orgId, 'legacy-running'],
    );
    const before = await keyCount();
    expectRefused(await post('/v1/api-keys', org.admin, 'legacy-running', body), first, /before keys were bound/);
    expect(await keyCount()).toBe(before);
  });
});
