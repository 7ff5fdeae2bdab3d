/**
 * How the service serves the dashboard (api/dashboard.ts): index.html for `/dashboard` and every path
 * of the app, revalidated and under a strict Content-Security-Policy; the hashed assets cached for a
 * year; a missing asset a 404 problem; and without a build, 503 `dashboard.not_built`, not a crash.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRouter } from '../../api/dashboard.ts';
import { problemHandler } from '../../api/middleware/problem.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { call, expectProblem, startTestApp, type TestApp } from '../support/harness.ts';
import { requireBuiltDashboard } from './chromium.ts';
import { directive, references } from '../support/pages.ts';

let app: TestApp;

beforeAll(async () => {
  requireBuiltDashboard();
  app = await startTestApp();
});
afterAll(async () => app?.close());

describe('GET /dashboard', () => {
  it('answers the app without a credential, for its own paths too, with the headers of a page', async () => {
    const home = await call(app, 'GET', '/dashboard');
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/api-keys', '/dashboard/some/deep/link']) {
      const res = await call(app, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.text).toBe(home.text);
    }
    expect(home.text).toContain('<div id="root"></div>');
    expect(home.text).not.toMatch(/https?:\/\//);
  });

  it('redirects /invites/accept, where invite links once pointed, to the accept page (the fragment stays in the browser)', async () => {
    const res = await fetch(`${app.baseUrl}/invites/accept`, { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/dashboard/invites/accept');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('sends a Content-Security-Policy that lets nothing inline or from elsewhere run', async () => {
    const res = await call(app, 'GET', '/dashboard');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(directive(policy, 'default-src')).toEqual(["'none'"]);
    for (const name of ['script-src', 'style-src', 'connect-src'])
      expect(directive(policy, name), name).toEqual(["'self'"]);
    expect(directive(policy, 'frame-ancestors')).toEqual(["'none'"]);
    expect(policy).not.toMatch(/unsafe|https?:|\*/);
    expect(res.text).not.toMatch(/<script>|<style|\sstyle=/);
  });

  it('serves every asset the page loads, with its type and a long immutable lifetime', async () => {
    const page = await call(app, 'GET', '/dashboard');
    const assets = references(page.text).filter((r) => r.startsWith('/dashboard/assets/'));
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const res = await call(app, 'GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type')).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers 404 for an asset that is not there, never the page nor a file outside the build', async () => {
    for (const path of [
      '/dashboard/assets/missing-0000.js',
      '/dashboard/assets/..%2F..%2Fpackage.json',
      '/dashboard/assets/.hidden.js',
      '/dashboard/assets/index.html',
    ])
      expectProblem(await call(app, 'GET', path), 404, 'request.route_not_found');
  });
});

describe('without a build', () => {
  it('answers 503 dashboard.not_built, saying how to build it', async () => {
    const bare = express();
    bare.use(dashboardRouter(app.config, '/nonexistent/dashboard/'));
    bare.use(problemHandler(createMetrics(false), 1024));
    const server = http.createServer(bare);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/dashboard/playground`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await res.json()) as { code: string; detail: string };
      expect(problem.code).toBe('dashboard.not_built');
      expect(problem.detail).toContain('npm run build:dashboard');
    } finally {
      server.close();
    }
  });
});
