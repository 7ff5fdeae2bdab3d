/**
 * What the evidence-*.test.ts files share: the create call, a body for some bytes, and the upload
 * itself (the local backend's signed URL, re-aimed at the test server's port; or an S3 URL as is).
 */
import { createHash, randomBytes } from 'node:crypto';
import { call, type Reply, type TestApp } from '../support/harness.ts';

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Some random bytes and the create body that declares them. */
export function evidence(size = 1000, kind = 'screenshot') {
  const bytes = randomBytes(size);
  return { bytes, body: { kind, sha256: sha256(bytes), size_bytes: size } };
}

export const createUpload = (app: TestApp, key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/evidence-uploads', { key, json: body, headers });

export const complete = (app: TestApp, key: string, storageKey: string) =>
  call(app, 'POST', `/v1/evidence-uploads/${storageKey}:complete`, { key });

/** The path and query of a local upload URL (its host is PUBLIC_URL, not the test server's port). */
export const localPath = (uploadUrl: string) => {
  const u = new URL(uploadUrl);
  return `${u.pathname}${u.search}`;
};

/** PUT `bytes` to a local upload path on `app` (no bearer: the signature is the credential). */
export async function putLocal(
  app: TestApp,
  pathAndQuery: string,
  bytes: Buffer | string,
  contentType = 'application/octet-stream',
): Promise<Reply> {
  const res = await fetch(`${app.baseUrl}${pathAndQuery}`, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}
