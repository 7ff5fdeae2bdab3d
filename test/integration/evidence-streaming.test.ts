/**
 * The local upload URL reads its body as a stream: a chunked body that runs past size_bytes is refused
 * while the client is still sending (it is never buffered whole), and one that ends short is refused.
 */
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { createUpload, evidence, localPath } from './evidence-fixture.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'cf-evidence-stream-'));
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ env: { DATA_DIR: dataDir } });
  org = await buildOrg(app);
});
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Sent {
  status: number;
  body: { code?: string };
  /** Bytes written before the answer came. */
  sentBeforeAnswer: number;
}

/** PUTs chunks (chunked transfer encoding, no Content-Length) until answered or `maxBytes` are sent. */
function putChunked(pathAndQuery: string, chunk: Buffer, maxBytes: number): Promise<Sent> {
  const url = new URL(`${app.baseUrl}${pathAndQuery}`);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(url, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {}, sentBeforeAnswer }));
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const pump = () => {
      while (!answered && sent < maxBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('streaming upload', () => {
  it('refuses a body running past size_bytes as soon as it does (400 evidence.size_mismatch), keeping nothing', async () => {
    const e = evidence(10);
    const r = await createUpload(app, org.admin, e.body);
    const result = await putChunked(localPath(r.body.upload_url), Buffer.alloc(64 * 1024, 7), 64 * 1024 * 1024);
    expect(result.status).toBe(400);
    expect(result.body.code).toBe('evidence.size_mismatch');
    // Answered long before the 64 MiB the client was ready to send.
    expect(result.sentBeforeAnswer).toBeLessThan(16 * 1024 * 1024);
    expect(readdirSync(path.join(dataDir, 'evidence', org.orgId))).toEqual([]);
  });

  it('refuses a chunked body that ends short of size_bytes, and accepts one of exactly size_bytes', async () => {
    const e = evidence(3 * 1024);
    const r = await createUpload(app, org.admin, e.body);
    const short = await putChunked(localPath(r.body.upload_url), e.bytes.subarray(0, 1024), 2 * 1024);
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('evidence.size_mismatch');
    const exact = await putChunked(localPath(r.body.upload_url), e.bytes, 3 * 1024);
    expect(exact.status).toBe(200);
  });
});
