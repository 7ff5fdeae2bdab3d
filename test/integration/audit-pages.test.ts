// Audit events: page limits, and signed cursors that walk every event once.
import { describe, expect, it } from 'vitest';
import { call, expectProblem } from '../support/harness.ts';
import { app, audit, org, useAuditApp, walk, type Event } from './audit-fixture.ts';

useAuditApp();

describe('pages', () => {
  it('limit is 1 to 10000, default 50', async () => {
    for (const limit of ['0', '10001', '-1', '1.5', 'many'])
      expectProblem(await audit(`?limit=${limit}`), 400, 'request.validation_failed');
    const one = await audit('?limit=1');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.next_cursor).toEqual(expect.any(String));
    const max = await audit('?limit=10000');
    expect(max.status).toBe(200);
    expect(max.body.next_cursor).toBeNull();
    expect((await audit()).body.data).toEqual(max.body.data.slice(0, 50));
  });

  it('cursors walk every event once, newest first', async () => {
    const all = (await audit('?limit=10000')).body.data as Event[];
    expect(all.length).toBe(6);
    expect(await walk('', 2)).toEqual(all);
    expect(await walk('?kind=detection', 1)).toEqual(all.filter((e) => e.kind === 'detection'));
    const ids = all.map((e) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('a tampered or foreign cursor is 400 audit.invalid_cursor', async () => {
    const { next_cursor } = (await audit('?limit=1')).body;
    const [body, mac] = next_cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ before: 'aud_7ZZZZZZZZZZZZZZZZZZZZZZZZZ' })).toString('base64url')}.${mac}`;
    expectProblem(await audit(`?cursor=${forged}`), 400, 'audit.invalid_cursor');
    expectProblem(await audit(`?cursor=${body}.AAAA${mac.slice(4)}`), 400, 'audit.invalid_cursor');
    expectProblem(await audit('?cursor=garbage'), 400, 'audit.invalid_cursor');
    const scansCursor = (await call(app, 'GET', '/v1/scans?limit=1', { key: org.admin })).body.next_cursor;
    expectProblem(await audit(`?cursor=${scansCursor}`), 400, 'audit.invalid_cursor');
  });
});
