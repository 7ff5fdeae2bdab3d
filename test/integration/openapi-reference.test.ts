/**
 * `GET /docs`, the API reference page (api/openapi/reference.ts): public HTML whose every script,
 * stylesheet and link is on this origin, its assets served with long cache lifetimes, and a
 * Content-Security-Policy that lets nothing load from elsewhere.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../support/harness.ts';
import { directive, references } from '../support/pages.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

describe('GET /docs', () => {
  it('answers the page without a credential, referring only to this origin', async () => {
    const res = await call(app, 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const refs = references(res.text);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^\/[^/]/);
      expect(new URL(ref, app.baseUrl).origin).toBe(app.baseUrl);
    }
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('sends a Content-Security-Policy that allows this origin only', async () => {
    const page = await call(app, 'GET', '/docs');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(directive(policy, 'default-src')).toEqual(["'none'"]);
    // Only the page's one inline script, by its hash: no 'unsafe-inline' for scripts.
    const inline = [...page.text.matchAll(/<script>([^<]*)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    expect(directive(policy, 'script-src')).toEqual(["'self'", `'sha256-${hash}'`]);
    for (const name of ['style-src', 'img-src', 'connect-src', 'font-src'])
      expect(directive(policy, name)?.[0], name).toBe("'self'");
    expect(policy).not.toMatch(/https?:|\*/);
    expect(directive(policy, 'frame-ancestors')).toEqual(["'none'"]);
  });

  it('serves every asset the page loads, with its type and a long immutable lifetime', async () => {
    const page = await call(app, 'GET', '/docs');
    const assets = references(page.text).filter((r) => r.startsWith('/docs/assets/'));
    expect(assets.map((a) => a.split('?')[0]).sort()).toEqual([
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
    ]);
    for (const asset of assets) {
      expect(asset).toMatch(/\?v=\d+\.\d+\.\d+/);
      const res = await call(app, 'GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type')).toMatch(asset.includes('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.text.length).toBeGreaterThan(10_000);
    }
  });

  it('starts Swagger UI on /openapi.json, with the online validator off', async () => {
    const page = await call(app, 'GET', '/docs');
    expect(page.text).toContain("url: '/openapi.json'");
    expect(page.text).toContain('validatorUrl: null');
    expect((await call(app, 'GET', '/openapi.json')).status).toBe(200);
  });
});
