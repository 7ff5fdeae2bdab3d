/**
 * The benchmark's durable echo (benchmarks/durable-echo-server.ts) as `npm run bench` starts it: a
 * child process on a real database, authenticating with the service's keys, answering 201 only once
 * its scan row is committed.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { DURABLE_ECHO_PATH } from '../../benchmarks/durable-echo.ts';
import { start, stop } from '../../benchmarks/processes.ts';
import {
  buildApiKey,
  buildOrg,
  isolatedDatabase,
  startTestApp,
  TEST_MASTER_SECRET,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;
let echo: { child: ChildProcess; port: number };

beforeAll(async () => {
  const url = await isolatedDatabase();
  app = await startTestApp({ env: { DATABASE_URL: url, WEBHOOK_DELIVERY_ENABLED: 'false' } });
  org = await buildOrg(app);
  echo = await start(
    ['benchmarks/durable-echo-server.ts'],
    {
      DATABASE_URL: url,
      DATABASE_POOLER: inject('databasePooler'),
      SECRET_KEY: TEST_MASTER_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    /listening (\d+)/,
  );
}, 60_000);
afterAll(async () => {
  if (echo) await stop(echo.child, 5_000);
  await app?.close();
});

const text = (i: number) => `Please summarise report ${i} and list the three biggest risks. `.repeat(16);
const post = (body: unknown, key?: string) =>
  fetch(`http://127.0.0.1:${echo.port}${DURABLE_ECHO_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
const scan = (i: number) => ({
  kind: 'content',
  surface: 'user_message',
  content: { type: 'text', text: text(i) },
  options: { tier: 'fast' },
});

it('answers 201 only once each scan row is committed: an allowed scan of the body, without findings', async () => {
  // Requests at once, so the group-commit writer batches them; each answer must find its row.
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(scan(i), org.admin)));
  for (const [i, r] of replies.entries()) {
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: string };
    const { rows } = await app.db.query(
      'SELECT org_id, api_key_id, action, surface, tier, findings, content_chars, content_stored FROM scans WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([
      {
        org_id: org.orgId,
        api_key_id: org.adminId,
        action: 'allowed',
        surface: 'user_message',
        tier: 'fast',
        findings: [],
        content_chars: text(i).length,
        content_stored: false,
      },
    ]);
  }
});

it('refuses what the scan route refuses: no key 401, a key without scans:write 403, a bad body 400', async () => {
  const count = async () => Number((await app.db.query('SELECT count(*) FROM scans')).rows[0].count);
  const before = await count();
  expect((await post(scan(0))).status).toBe(401);
  const reader = await buildApiKey(app, org.orgId, { scopes: ['scans:read'] });
  expect((await post(scan(0), reader.secret)).status).toBe(403);
  expect((await post({ surface: 'user_message' }, org.admin)).status).toBe(400);
  expect(await count()).toBe(before);
});
