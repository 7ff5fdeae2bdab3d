/**
 * Evidence uploads on the S3 backend, against a real S3-compatible server (s3rver, in-process on
 * 127.0.0.1, a temporary directory): the presigned PUT signs Content-Length and x-amz-checksum-sha256;
 * `:complete` reads the object back, so a tampered body of the right size (which s3rver does not check)
 * is never marked verified and is deleted.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { buildOrg, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { complete, createUpload, evidence } from './evidence-fixture.ts';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (o: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

const BUCKET = 'evidence-test';
const s3Dir = mkdtempSync(path.join(tmpdir(), 'cf-s3rver-'));
let s3: S3rverInstance;
let app: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await s3.run();
  app = await startTestApp({
    env: {
      EVIDENCE_S3_BUCKET: BUCKET,
      EVIDENCE_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      EVIDENCE_S3_REGION: 'us-east-1',
      EVIDENCE_S3_ACCESS_KEY_ID: 'S3RVER',
      EVIDENCE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      EVIDENCE_S3_FORCE_PATH_STYLE: 'true',
    },
  });
  org = await buildOrg(app);
  other = await buildOrg(app);
});
afterAll(async () => {
  await app?.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

/** PUT to the presigned URL as a client would: plain fetch, with the answer's headers. */
const putPresigned = (created: { upload_url: string; upload_headers: Record<string, string> }, bytes: Buffer) =>
  fetch(created.upload_url, { method: 'PUT', headers: created.upload_headers, body: new Uint8Array(bytes) });

const row = async (key: string) =>
  (await app.db.query('SELECT * FROM evidence_uploads WHERE storage_key = $1', [key])).rows[0];

describe('S3 backend', () => {
  it('presigns a PUT that signs the size and the SHA-256; :complete verifies the object and is idempotent', async () => {
    const e = evidence(4096);
    const r = await createUpload(app, org.admin, e.body);
    expect(r.status, r.text).toBe(201);
    const url = new URL(r.body.upload_url);
    expect(url.pathname).toBe(`/${BUCKET}/${org.orgId}/${r.body.storage_key}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'x-amz-checksum-sha256', 'host']),
    );
    const checksum = Buffer.from(e.body.sha256, 'hex').toString('base64');
    expect(r.body.upload_headers).toEqual({ 'x-amz-checksum-sha256': checksum });
    expect((await row(r.body.storage_key)).backend).toBe('s3');

    expectProblem(await complete(app, org.admin, r.body.storage_key), 409, 'evidence.not_uploaded');
    const put = await putPresigned(r.body, e.bytes);
    expect(put.status, await put.text()).toBe(200);
    const done = await complete(app, org.admin, r.body.storage_key);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ storage_key: r.body.storage_key, size_bytes: 4096, sha256: e.body.sha256 });
    expect(done.body.verified_at).not.toBeNull();
    const again = await complete(app, org.admin, r.body.storage_key);
    expect(again.body.verified_at).toBe(done.body.verified_at);
  });

  it('never verifies a tampered body of the declared size (400 evidence.checksum_mismatch, object deleted); the right bytes then verify', async () => {
    const e = evidence(1024);
    const r = await createUpload(app, org.admin, e.body);
    const tampered = Buffer.from(e.bytes);
    tampered[0] = tampered[0]! ^ 1;
    expect((await putPresigned(r.body, tampered)).status).toBe(200); // s3rver does not check the checksum
    expectProblem(await complete(app, org.admin, r.body.storage_key), 400, 'evidence.checksum_mismatch');
    expect((await row(r.body.storage_key)).verified_at).toBeNull();
    expectProblem(await complete(app, org.admin, r.body.storage_key), 409, 'evidence.not_uploaded');
    expect((await putPresigned(r.body, e.bytes)).status).toBe(200);
    expect((await complete(app, org.admin, r.body.storage_key)).status).toBe(200);
  });

  it('never verifies a body of another size, even where the server stored it (400 evidence.size_mismatch, object deleted)', async () => {
    const e = evidence(100);
    const r = await createUpload(app, org.admin, e.body);
    // Content-Length is a signed header; S3 refuses the mismatch, s3rver may store it: either way not verified.
    const put = await putPresigned(r.body, Buffer.concat([e.bytes, Buffer.of(1)]));
    if (put.status === 200) {
      const done = await complete(app, org.admin, r.body.storage_key);
      expectProblem(done, 400, 'evidence.size_mismatch');
      expect(done.body.size_bytes).toBe(100);
    }
    expect((await row(r.body.storage_key)).verified_at).toBeNull();
    expectProblem(await complete(app, org.admin, r.body.storage_key), 409, 'evidence.not_uploaded');
  });

  it('another organization cannot complete the upload (404 evidence.not_found)', async () => {
    const e = evidence(10);
    const r = await createUpload(app, org.admin, e.body);
    await putPresigned(r.body, e.bytes);
    expectProblem(await complete(app, other.admin, r.body.storage_key), 404, 'evidence.not_found');
    expect((await row(r.body.storage_key)).verified_at).toBeNull();
  });
});

describe('EVIDENCE_S3_* configuration', () => {
  it('refuses an access key id without its secret, and S3 variables without a bucket', () => {
    expect(() => loadConfig({ EVIDENCE_S3_BUCKET: 'b', EVIDENCE_S3_ACCESS_KEY_ID: 'id' })).toThrow(
      /set both or neither/,
    );
    expect(() => loadConfig({ EVIDENCE_S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/EVIDENCE_S3_BUCKET/);
    expect(loadConfig({}).EVIDENCE_UPLOAD_TTL_SECONDS).toBe(900);
  });
});
