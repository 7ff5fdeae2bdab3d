import { describe, expect, it } from 'vitest';
import { buildApiKey, buildOrg, call, expectProblem } from '../support/harness.ts';
import { app, finalize, newRun, org, other, useRedteamApp } from './redteam-fixture.ts';

useRedteamApp();

const get = (id: string, key = org.admin) => call(app, 'GET', `/v1/redteam-runs/${id}`, { key });
const list = (query = '', key = org.admin) => call(app, 'GET', `/v1/redteam-runs${query}`, { key });

describe('GET /v1/redteam-runs/{run_id}', () => {
  it('returns the run to its organization only', async () => {
    const id = await newRun();
    const r = await get(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ run_id: id, state: 'running' });
    expect(r.body).not.toHaveProperty('created_by');
    expectProblem(await get(id, other.admin), 404, 'redteam.run_not_found');
    expectProblem(await get('rtr_00000000000000000000000000'), 404, 'redteam.run_not_found');
    expectProblem(await get('rtr_short'), 400, 'request.validation_failed');
    expectProblem(await get(`lev_${id.slice(4)}`), 400, 'request.validation_failed');
  });

  it('requires redteam:read (admin implies it) and a credential', async () => {
    const id = await newRun();
    const writer = await buildApiKey(app, org.orgId, { scopes: ['redteam:write'] });
    const reader = await buildApiKey(app, org.orgId, { scopes: ['redteam:read'] });
    expectProblem(await get(id, writer.secret), 403, 'auth.insufficient_scope');
    expectProblem(await list('', writer.secret), 403, 'auth.insufficient_scope');
    expect((await get(id, reader.secret)).status).toBe(200);
    expect((await list('', reader.secret)).status).toBe(200);
    expectProblem(await call(app, 'GET', `/v1/redteam-runs/${id}`), 401, 'auth.unauthenticated');
  });
});

describe('GET /v1/redteam-runs', () => {
  it('pages the organization’s runs newest first, with a state filter', async () => {
    const fresh = await buildOrg(app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await newRun({}, fresh.admin));
    await finalize(ids[1]!, undefined, fresh.admin);
    const p1 = await list('?limit=2', fresh.admin);
    expect(p1.status).toBe(200);
    expect(p1.body.data.map((r: { run_id: string }) => r.run_id)).toEqual([ids[4], ids[3]]);
    const p2 = await list(`?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`, fresh.admin);
    const p3 = await list(`?limit=2&cursor=${encodeURIComponent(p2.body.next_cursor)}`, fresh.admin);
    expect(p2.body.data.map((r: { run_id: string }) => r.run_id)).toEqual([ids[2], ids[1]]);
    expect(p3.body.data.map((r: { run_id: string }) => r.run_id)).toEqual([ids[0]]);
    expect(p3.body.next_cursor).toBeNull();
    const finished = await list('?state=finished', fresh.admin);
    expect(finished.body.data.map((r: { run_id: string }) => r.run_id)).toEqual([ids[1]]);
    expect(finished.body.data[0].state).toBe('finished');
    const running = await list('?state=running', fresh.admin);
    expect(running.body.data).toHaveLength(4);
  });

  it('shows no other organization’s runs and refuses its cursors', async () => {
    const mine = await newRun();
    await newRun({}, other.admin);
    await newRun({}, other.admin);
    const theirs = await list('?limit=1', other.admin);
    expect(theirs.body.data.map((r: { run_id: string }) => r.run_id)).not.toContain(mine);
    const all = await list('?limit=200');
    for (const r of all.body.data) expect((await get(r.run_id, other.admin)).status).toBe(404);
    expectProblem(
      await list(`?cursor=${encodeURIComponent(theirs.body.next_cursor)}`),
      400,
      'redteam_runs.invalid_cursor',
    );
  });

  it('validates limit, state and unknown parameters', async () => {
    expect((await list('?limit=200')).status).toBe(200);
    expect((await list('?limit=1')).status).toBe(200);
    expectProblem(await list('?limit=0'), 400, 'request.validation_failed');
    expectProblem(await list('?limit=201'), 400, 'request.validation_failed');
    expectProblem(await list('?state=done'), 400, 'request.validation_failed');
    expectProblem(await list('?verdict=high'), 400, 'request.validation_failed');
  });
});
