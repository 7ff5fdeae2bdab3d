// API keys: the list (paging, signed cursors, limits, unknown parameters).
import { describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, expectProblem } from '../support/harness.ts';
import { app, org, useApiKeysApp } from './api-keys-fixture.ts';

useApiKeysApp();

describe('list', () => {
  it('pages newest first with a signed cursor and rejects a tampered one', async () => {
    const o = await buildOrg(app);
    for (let i = 0; i < 4; i++) await buildApiKey(app, o.orgId, { name: `k${i}`, scopes: ['scans:read'] });
    const first = await call(app, 'GET', '/v1/api-keys?limit=2', { key: o.admin });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].secret).toBeUndefined();
    expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['k3', 'k2']);
    const second = await call(app, 'GET', `/v1/api-keys?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, {
      key: o.admin,
    });
    expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['k1', 'k0']);
    const third = await call(app, 'GET', `/v1/api-keys?limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`, {
      key: o.admin,
    });
    expect(third.body.data.map((k: { name: string }) => k.name)).toEqual(['test key']);
    expect(third.body.next_cursor).toBeNull();

    const c: string = first.body.next_cursor;
    const tampered = `${c.slice(0, 3)}${c[3] === 'A' ? 'B' : 'A'}${c.slice(4)}`;
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?cursor=${encodeURIComponent(tampered)}`, { key: o.admin }),
      400,
      'api_keys.invalid_cursor',
    );
    expectProblem(
      await call(app, 'GET', '/v1/api-keys?cursor=garbage', { key: o.admin }),
      400,
      'api_keys.invalid_cursor',
    );
    // A cursor minted for another organization is just as invalid.
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?cursor=${encodeURIComponent(c)}`, { key: org.admin }),
      400,
      'api_keys.invalid_cursor',
    );
  });

  it.each(['0', '201', 'abc', '1.5'])('rejects limit=%s', async (limit) => {
    expectProblem(
      await call(app, 'GET', `/v1/api-keys?limit=${limit}`, { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });

  it('accepts limit 1 and 200, and rejects unknown query parameters', async () => {
    expect((await call(app, 'GET', '/v1/api-keys?limit=1', { key: org.admin })).body.data).toHaveLength(1);
    expect((await call(app, 'GET', '/v1/api-keys?limit=200', { key: org.admin })).status).toBe(200);
    expectProblem(
      await call(app, 'GET', '/v1/api-keys?colour=red', { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });
});
