/**
 * The signed upload URL's rate limits: a valid signature spends a budget of its own upload, checked
 * before the per-address limiter, so an address that spent its unauthenticated budget (one shared by
 * every client behind a proxy without TRUST_PROXY) still uploads; a bad or expired signature spends
 * the address's budget and never the upload's; a refused upload's body is not read.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { buildOrg, call, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { createUpload, evidence, localPath, putLocal } from './evidence-fixture.ts';
import type { Reply } from '../support/harness.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'cf-evidence-limits-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * An app whose address budget is `perAddress` and whose upload budget is `perUpload`, in one-hour
 * windows on a stopped clock (no window rolls over unless a test moves the clock), upload URLs valid 60 s.
 */
async function limitedApp(perAddress: number, perUpload: number, clock: ManualClock): Promise<TestApp> {
  return startTestApp({
    clock,
    env: {
      DATA_DIR: dataDir,
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(perAddress),
      RATE_LIMIT_UPLOAD_REQUESTS: String(perUpload),
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      EVIDENCE_UPLOAD_TTL_SECONDS: '60',
    },
  });
}

/** Declares `size` random bytes as `org`: the bytes and the upload URL's path. */
async function declared(app: TestApp, org: TestOrg, size = 100) {
  const e = evidence(size);
  const r = await createUpload(app, org.admin, e.body);
  expect(r.status, r.text).toBe(201);
  return { bytes: e.bytes, path: localPath(r.body.upload_url as string) };
}

/** The upload path with its signature altered. */
function forged(uploadPath: string): string {
  const sig = new URL(`http://x${uploadPath}`).searchParams.get('signature')!;
  return uploadPath.replace(sig, `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
}

/** Spends whatever is left of the address's unauthenticated budget, then checks that it is spent. */
async function spendAddress(app: TestApp, budget: number): Promise<void> {
  for (let i = 0; i < budget; i++) await call(app, 'GET', '/v1/me');
  expectProblem(await call(app, 'GET', '/v1/me'), 429, 'rate_limit.exceeded');
}

const limitOf = (r: Reply) => [r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining')];

describe('the signed upload URL and the per-address limit', () => {
  const clock = new ManualClock('2026-03-01T12:00:30.000Z');
  let app: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    app = await limitedApp(3, 2, clock);
    org = await buildOrg(app);
  });
  afterAll(async () => app?.close());

  it('accepts a validly signed upload from an address that spent its unauthenticated budget', async () => {
    const u = await declared(app, org);
    await spendAddress(app, 3);
    const r = await putLocal(app, u.path, u.bytes);
    expect(r.status, r.text).toBe(200);
    // The upload's own budget: 2 per window, one spent.
    expect(limitOf(r)).toEqual(['2', '1']);
    expect(r.headers.get('ratelimit-policy')).toBe('2;w=3600');
  });

  it("answers the OpenAPI document, /docs, its assets and the dashboard's files whatever the address spent", async () => {
    await spendAddress(app, 3);
    for (const p of [
      '/openapi.json',
      '/docs',
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/dashboard/config.json',
    ]) {
      const r = await call(app, 'GET', p);
      expect(r.status, p).toBe(200);
      // They draw from no budget, so they advertise none.
      expect(r.headers.get('ratelimit-limit'), p).toBeNull();
    }
  });
});

describe("the upload's own budget", () => {
  it('is spent by validly signed requests only: bad and expired signatures spend the address', async () => {
    const clock = new ManualClock('2026-03-01T12:00:30.000Z');
    const app = await limitedApp(5, 2, clock);
    try {
      const org = await buildOrg(app);
      const late = await declared(app, org);
      clock.advance(61_000);
      const u = await declared(app, org);
      const other = await declared(app, org);
      for (const remaining of ['4', '3']) {
        const r = await putLocal(app, forged(u.path), u.bytes);
        expectProblem(r, 403, 'evidence.signature_invalid');
        expect(limitOf(r)).toEqual(['5', remaining]);
      }
      const expired = await putLocal(app, late.path, late.bytes);
      expectProblem(expired, 410, 'evidence.upload_expired');
      expect(limitOf(expired)).toEqual(['5', '2']);

      // The forgeries left the upload's budget whole; its own requests spend it, then it is refused.
      const ok = await putLocal(app, u.path, u.bytes);
      expect(ok.status, ok.text).toBe(200);
      expect(limitOf(ok)).toEqual(['2', '1']);
      const again = await putLocal(app, u.path, u.bytes);
      expectProblem(again, 409, 'evidence.already_uploaded');
      expect(limitOf(again)).toEqual(['2', '0']);
      const over = await putLocal(app, u.path, u.bytes);
      expectProblem(over, 429, 'rate_limit.exceeded');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

      // Neither budget reached the other: the address has what the forgeries left, another upload its own.
      expect(limitOf(await call(app, 'GET', '/v1/me'))).toEqual(['5', '1']);
      const second = await putLocal(app, other.path, other.bytes);
      expect(second.status, second.text).toBe(200);
      expect(limitOf(second)).toEqual(['2', '1']);
    } finally {
      await app.close();
    }
  });

  it('leaves a path the signature check cannot decode to the route, which answers it under the address budget', async () => {
    const clock = new ManualClock('2026-03-01T12:00:30.000Z');
    const app = await limitedApp(5, 2, clock);
    try {
      const r = await putLocal(app, '/v1/evidence-uploads/%ED%A0%80/content', 'x');
      expectProblem(r, 400, 'request.malformed');
      expect(limitOf(r)).toEqual(['5', '4']);
    } finally {
      await app.close();
    }
  });

  it('is not read from a refused upload: the 429 closes the connection instead', async () => {
    const clock = new ManualClock('2026-03-01T12:00:30.000Z');
    const app = await limitedApp(1, 1, clock);
    try {
      const org = await buildOrg(app);
      const u = await declared(app, org, 1_000_000);
      await spendAddress(app, 1);
      // A forged URL with a body far larger than what is sent before the answer comes.
      const req = http.request(new URL(`${app.baseUrl}${forged(u.path)}`), {
        method: 'PUT',
        headers: { 'content-length': String(u.bytes.length) },
      });
      // The server may close while the rest is unsent: that is the point.
      req.on('error', () => undefined);
      const answered = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
      req.write(u.bytes.subarray(0, 1000));
      const res = await answered;
      res.resume();
      req.destroy();
      expect(res.statusCode).toBe(429);
      expect(res.headers.connection).toBe('close');
    } finally {
      await app.close();
    }
  });
});
