import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../lib/metrics.ts';
import { problemHandler } from '../../api/middleware/problem.ts';
import { requestContext } from '../../api/middleware/request-context.ts';
import { createLogger } from '../../lib/logger.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

const lines: string[] = [];
let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp({ env: { LOG_LEVEL: 'trace' }, logLines: lines });
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

describe('logs', () => {
  it('carry the request id on every request line and never a secret', async () => {
    const created = await call(app, 'POST', '/v1/api-keys', {
      key: org.admin,
      json: { name: 'logged', scopes: ['scans:read'] },
      headers: { 'x-request-id': 'log-test-1' },
    });
    const rotated = await call(app, 'POST', `/v1/api-keys/${created.body.id}:rotate`, {
      key: org.admin,
      headers: { 'x-request-id': 'log-test-2' },
    });
    await call(app, 'GET', '/v1/me', { key: 'sk_live_notarealkeybutsecretlooking000000000000000' });
    // an invite token travels in the path (POST /v1/invites/{token}:accept)
    const inviteToken = 'AnInviteTokenThatMustNeverBeLogged0123456789';
    await call(app, 'POST', `/v1/invites/${inviteToken}:accept`, { key: org.admin });
    const text = lines.join('');
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
    expect(requestLines.length).toBeGreaterThanOrEqual(3);
    for (const l of requestLines) expect(l.request_id).toBeTruthy();
    expect(requestLines.map((l) => l.request_id)).toEqual(expect.arrayContaining(['log-test-1', 'log-test-2']));
    expect(requestLines.map((l) => l.path)).toContain('/v1/invites/{token}:accept');
    for (const secret of [
      org.admin,
      created.body.secret,
      rotated.body.secret,
      'sk_live_notarealkeybutsecretlooking',
      inviteToken,
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('client faults and server faults', () => {
  /** Sends bytes on a fresh connection and closes it after `ms` (a client that gives up mid-body). */
  const rawSend = (a: TestApp, data: string, ms: number) =>
    new Promise<void>((resolve) => {
      const s = net.connect(Number(new URL(a.baseUrl).port), '127.0.0.1', () => s.write(data));
      s.on('error', () => undefined);
      setTimeout(() => (s.destroy(), resolve()), ms);
    });

  it('a client fault logs below error and without a stack; a server fault keeps error level and its stack', async () => {
    // The control: the real error handler behind the real request context, with a route that fails.
    const controlLines: string[] = [];
    const metrics = createMetrics(false);
    const control = express();
    control.use(
      requestContext(
        createLogger('debug', new Writable({ write: (c, _e, done) => (controlLines.push(String(c)), done()) })),
        metrics,
      ),
    );
    control.get('/boom', () => {
      throw new Error('server bug');
    });
    control.use(problemHandler(metrics, 1024));
    const server = http.createServer(control);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
      expect(r.status).toBe(500);
      const errors = controlLines.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);
      expect(errors).toHaveLength(1);
      expect(errors[0].err.stack).toContain('server bug');
    } finally {
      server.closeAllConnections();
      server.close();
    }

    const faultLines: string[] = [];
    const a = await startTestApp({ logLines: faultLines, env: { LOG_LEVEL: 'debug' } });
    try {
      const o = await buildOrg(a);
      const policy = (name: string) => ({ name, rules: [], default_action: 'allowed' });
      const replies = [
        // Lone surrogates that used to reach PostgreSQL (500, the driver's stack at error level).
        await call(a, 'POST', '/v1/policies', { key: o.admin, json: policy('\ud800') }),
        await call(a, 'POST', '/v1/scans', {
          key: o.admin,
          json: {
            kind: 'content',
            surface: 'user_message',
            content: { type: 'text', text: 'x' },
            context: { agent_id: '\udc00' },
          },
        }),
        await call(a, 'GET', '/v1/scans?agent_id=%00', { key: o.admin }),
        await call(a, 'GET', '/v1/scans?agent_id=%ED%A0%80', { key: o.admin }),
        await call(a, 'GET', '/v1/scans/%ED%A0%80', { key: o.admin }),
        await call(a, 'POST', '/v1/policies', { key: o.admin, raw: '{"name": ' }),
        await call(a, 'POST', '/v1/policies', { key: o.admin, raw: '{}', headers: { 'content-encoding': 'gzip' } }),
        await call(a, 'POST', '/v1/policies', {
          key: o.admin,
          raw: '{}',
          contentType: 'application/json; charset=utf-16',
        }),
      ];
      expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 415]);
      await rawSend(
        a,
        `POST /v1/policies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${o.admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": `,
        200,
      );
      await rawSend(a, 'NOT HTTP\r\n\r\n', 100);
      const logged = faultLines.map((l) => JSON.parse(l));
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
      expect(faultLines.join('')).not.toContain('stack');
      // What a library reported is there at debug, by kind.
      expect(logged.filter((l) => l.msg === 'client fault').map((l) => l.cause)).toEqual(
        expect.arrayContaining(['entity.parse.failed', 'URIError']),
      );
    } finally {
      await a.close();
    }
  });
});
