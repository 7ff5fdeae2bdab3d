/**
 * Evidence uploads on the local backend: create (limits, scope, Idempotency-Key), the signed upload URL
 * (bytes streamed, size and SHA-256 checked, renamed into DATA_DIR/evidence/<org>/<key>), each error
 * code of the URL, expiry on a manual clock, `:complete`, and tenancy.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { verifiedKeys } from '../../store/evidence.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { complete, createUpload, evidence, localPath, putLocal, sha256 } from './evidence-fixture.ts';

const PUBLIC_URL = 'https://firewall.example.test';
const clock = new ManualClock(new Date());
const dataDir = mkdtempSync(path.join(tmpdir(), 'cf-evidence-'));
let app: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ clock, env: { PUBLIC_URL, DATA_DIR: dataDir } });
  org = await buildOrg(app);
  other = await buildOrg(app);
});
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Creates an upload for `size` random bytes as `org`: the bytes, the answer and the URL's path. */
async function declared(size = 1000) {
  const e = evidence(size);
  const r = await createUpload(app, org.admin, e.body);
  expect(r.status, r.text).toBe(201);
  return { ...e, created: r.body, path: localPath(r.body.upload_url as string), key: r.body.storage_key as string };
}

const row = async (key: string) =>
  (await app.db.query('SELECT * FROM evidence_uploads WHERE storage_key = $1', [key])).rows[0];

describe('create', () => {
  it('answers 201 with the storage key, its expiry 15 minutes out, and a signed PUT URL pinned to the declaration', async () => {
    const e = evidence(2048, 'har');
    const r = await createUpload(app, org.admin, e.body);
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      'expires_at',
      'storage_key',
      'upload_headers',
      'upload_method',
      'upload_url',
    ]);
    expect(r.body.storage_key).toMatch(/^ev_[0-9A-Za-z]{33}$/);
    expect(new Date(r.body.expires_at).getTime()).toBe(clock.now().getTime() + 900_000);
    expect(r.body.upload_method).toBe('PUT');
    expect(r.body.upload_headers).toEqual({});
    const url = new URL(r.body.upload_url);
    expect(url.origin).toBe(PUBLIC_URL);
    expect(url.pathname).toBe(`/v1/evidence-uploads/${r.body.storage_key}/content`);
    expect(url.searchParams.get('org')).toBe(org.orgId);
    expect(url.searchParams.get('expires')).toBe(String(Math.floor((clock.now().getTime() + 900_000) / 1000)));
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await row(r.body.storage_key);
    expect(stored).toMatchObject({
      org_id: org.orgId,
      kind: 'har',
      sha256: e.body.sha256,
      backend: 'local',
      verified_at: null,
    });
    expect(Number(stored.size_bytes)).toBe(2048);
  });

  it('accepts the bounds: size_bytes 1 and 104857600, a 64-character kind', async () => {
    for (const body of [
      { kind: 'k', sha256: 'a'.repeat(64), size_bytes: 1 },
      { kind: 'k'.repeat(64), sha256: '0'.repeat(64), size_bytes: 104_857_600 },
    ]) {
      const r = await createUpload(app, org.admin, body);
      expect(r.status, r.text).toBe(201);
    }
  });

  it.each([
    ['size_bytes 0', { size_bytes: 0 }, 'size_bytes'],
    ['size_bytes 104857601', { size_bytes: 104_857_601 }, 'size_bytes'],
    ['size_bytes 1.5', { size_bytes: 1.5 }, 'size_bytes'],
    ['size_bytes as a string', { size_bytes: '10' }, 'size_bytes'],
    ['a 65-character kind', { kind: 'k'.repeat(65) }, 'kind'],
    ['an empty kind', { kind: '' }, 'kind'],
    ['an uppercase sha256', { sha256: 'A'.repeat(64) }, 'sha256'],
    ['a 63-character sha256', { sha256: 'a'.repeat(63) }, 'sha256'],
    ['a 65-character sha256', { sha256: 'a'.repeat(65) }, 'sha256'],
    ['an unknown field', { backend: 's3' }, ''],
  ])('refuses %s with 400', async (_name, over, field) => {
    const r = await createUpload(app, org.admin, {
      kind: 'screenshot',
      sha256: 'b'.repeat(64),
      size_bytes: 10,
      ...over,
    });
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it('refuses a kind holding an identifier the redaction policy hides (it is stored verbatim), storing nothing', async () => {
    const count = async () =>
      (await app.db.query('SELECT count(*)::int AS n FROM evidence_uploads WHERE org_id = $1', [org.orgId])).rows[0].n;
    const before = await count();
    for (const kind of ['shot of ops@corp.example.com', 'card 4111 1111 1111 1111', 'ssn 301-45-6789']) {
      const r = await createUpload(app, org.admin, evidence(10, kind).body);
      expectProblem(r, 400, 'evidence.identifier_contains_pii');
      expect(r.body.errors).toEqual([{ path: 'kind', message: expect.stringMatching(/redaction policy hides/) }]);
      expect(r.text).not.toContain(kind);
    }
    expect(await count()).toBe(before);
    // a label the organization's policy passes through is not hidden: such a kind is stored as sent
    const open = await buildOrg(app);
    const policy = await call(app, 'PUT', '/v1/org/redaction-policy', {
      key: open.admin,
      json: {
        field_rules: { EMAIL_ADDRESS: 'pass_through' },
        default_obfuscation: 'redact',
        override_allowed_for_reviewers: false,
        redaction_version: 'redactor-v1.0.0',
      },
    });
    expect(policy.status, policy.text).toBe(200);
    const passed = await createUpload(app, open.admin, evidence(10, 'shot of ops@corp.example.com').body);
    expect(passed.status, passed.text).toBe(201);
    expect((await row(passed.body.storage_key)).kind).toBe('shot of ops@corp.example.com');
  });

  it('needs labeled_events:write: another scope gets 403 auth.insufficient_scope, no bearer 401', async () => {
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['labeled_events:read', 'redteam:write'] });
    expectProblem(await createUpload(app, secret, evidence().body), 403, 'auth.insufficient_scope');
    expectProblem(
      await call(app, 'POST', '/v1/evidence-uploads', { json: evidence().body }),
      401,
      'auth.unauthenticated',
    );
    const writer = await buildApiKey(app, org.orgId, { scopes: ['labeled_events:write'] });
    expect((await createUpload(app, writer.secret, evidence().body)).status).toBe(201);
  });

  it('replays the same answer for a repeated Idempotency-Key', async () => {
    const body = evidence().body;
    const headers = { 'idempotency-key': `ev-${Math.random()}` };
    const a = await createUpload(app, org.admin, body, headers);
    const b = await createUpload(app, org.admin, body, headers);
    expect(a.status).toBe(201);
    expect(b.body).toEqual(a.body);
  });
});

describe('the signed upload URL', () => {
  it('stores the bytes under DATA_DIR/evidence/<org>/<key>, marks the upload verified, then refuses a second upload with 409', async () => {
    const u = await declared(5000);
    const r = await putLocal(app, u.path, u.bytes);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ storage_key: u.key, sha256: u.body.sha256, size_bytes: 5000, kind: 'screenshot' });
    expect(r.body.verified_at).toBe(clock.now().toISOString());
    const file = path.join(dataDir, 'evidence', org.orgId, u.key);
    expect(sha256(readFileSync(file))).toBe(u.body.sha256);
    expect(readdirSync(path.dirname(file)).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect((await row(u.key)).verified_at).not.toBeNull();
    expect(await verifiedKeys(app.db, org.orgId, [u.key, 'ev_unknown'])).toEqual(new Set([u.key]));
    expect(await verifiedKeys(app.db, other.orgId, [u.key])).toEqual(new Set());
    expectProblem(await putLocal(app, u.path, u.bytes), 409, 'evidence.already_uploaded');
    const done = await complete(app, org.admin, u.key);
    expect(done.status, done.text).toBe(200);
    expect(done.body.verified_at).toBe(r.body.verified_at);
  });

  it('hashes the raw bytes whatever the content type: a JSON-looking body is not parsed', async () => {
    const text = '{"a": 1,   "b": [2]}';
    const r0 = await createUpload(app, org.admin, { kind: 'json', sha256: sha256(text), size_bytes: text.length });
    const r = await putLocal(app, localPath(r0.body.upload_url), text, 'application/json');
    expect(r.status, r.text).toBe(200);
  });

  it('refuses other bytes of the declared size with 400 evidence.checksum_mismatch and keeps nothing; the right bytes still go', async () => {
    const u = await declared(300);
    const tampered = Buffer.from(u.bytes);
    tampered[17] = tampered[17]! ^ 0xff;
    expectProblem(await putLocal(app, u.path, tampered), 400, 'evidence.checksum_mismatch');
    expect((await row(u.key)).verified_at).toBeNull();
    expect(existsSync(path.join(dataDir, 'evidence', org.orgId, u.key))).toBe(false);
    expect(readdirSync(path.join(dataDir, 'evidence', org.orgId)).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect((await putLocal(app, u.path, u.bytes)).status).toBe(200);
  });

  it('refuses a Content-Length other than size_bytes with 400 evidence.size_mismatch', async () => {
    const u = await declared(300);
    const short = await putLocal(app, u.path, u.bytes.subarray(0, 299));
    expectProblem(short, 400, 'evidence.size_mismatch');
    expect(short.body.size_bytes).toBe(300);
    expectProblem(await putLocal(app, u.path, Buffer.concat([u.bytes, Buffer.of(0)])), 400, 'evidence.size_mismatch');
    expect((await row(u.key)).verified_at).toBeNull();
  });

  it('refuses a bad signature, a missing one, and a key or organization it was not signed for with 403 evidence.signature_invalid', async () => {
    const u = await declared(100);
    const mine = await declared(100);
    const url = new URL(`http://x${u.path}`);
    const sig = url.searchParams.get('signature')!;
    const flipped = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const variants = [
      u.path.replace(sig, flipped),
      `${url.pathname}?org=${org.orgId}&expires=${url.searchParams.get('expires')}`,
      u.path.replace(
        `expires=${url.searchParams.get('expires')}`,
        `expires=${Number(url.searchParams.get('expires')) + 3600}`,
      ),
      u.path.replace(u.key, mine.key),
      u.path.replace(org.orgId, other.orgId),
      u.path.replace(u.key, 'ev_unknown'),
    ];
    for (const p of variants) expectProblem(await putLocal(app, p, u.bytes), 403, 'evidence.signature_invalid');
    expect((await row(u.key)).verified_at).toBeNull();
  });

  it("cannot write into another organization's key: org A's signature on org B's key is refused", async () => {
    const theirs = evidence(64);
    const b = await createUpload(app, other.admin, theirs.body);
    const mine = await declared(64);
    const forged = mine.path.replace(mine.key, b.body.storage_key).replace(org.orgId, other.orgId);
    expectProblem(await putLocal(app, forged, theirs.bytes), 403, 'evidence.signature_invalid');
    expect((await row(b.body.storage_key)).verified_at).toBeNull();
  });

  it('answers 410 evidence.upload_expired once the 15 minutes have passed, and works just before', async () => {
    const late = await declared(100);
    const inTime = await declared(100);
    clock.advance(899_000);
    expect((await putLocal(app, inTime.path, inTime.bytes)).status).toBe(200);
    clock.advance(1_000);
    expectProblem(await putLocal(app, late.path, late.bytes), 410, 'evidence.upload_expired');
    expect((await row(late.key)).verified_at).toBeNull();
  });
});

describe(':complete', () => {
  it('answers 409 evidence.not_uploaded before the bytes arrive', async () => {
    const u = await declared(10);
    expectProblem(await complete(app, org.admin, u.key), 409, 'evidence.not_uploaded');
  });

  it("is 404 evidence.not_found for another organization's key and for an unknown one", async () => {
    const u = await declared(10);
    await putLocal(app, u.path, u.bytes);
    expectProblem(await complete(app, other.admin, u.key), 404, 'evidence.not_found');
    expectProblem(await complete(app, org.admin, 'ev_unknown'), 404, 'evidence.not_found');
  });

  it('needs labeled_events:write', async () => {
    const u = await declared(10);
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['labeled_events:read'] });
    expectProblem(await complete(app, secret, u.key), 403, 'auth.insufficient_scope');
  });
});
