import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import {
  app,
  auditOf,
  finalize,
  finalizeBody,
  newRun,
  org,
  other,
  paths,
  STARTED,
  useRedteamApp,
} from './redteam-fixture.ts';

useRedteamApp();

describe('POST /v1/redteam-runs/{run_id}:finalize', () => {
  it('finishes a running run, stores the verdict and writes an audit row', async () => {
    const id = await newRun();
    const r = await finalize(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      run_id: id,
      state: 'finished',
      started_at: STARTED,
      finished_at: '2026-11-20T11:00:00.000Z',
      verdict: 'high',
      verdict_reason: 'three classes had misses',
    });
    const got = await call(app, 'GET', `/v1/redteam-runs/${id}`, { key: org.admin });
    expect(got.body).toEqual(r.body);
    const audit = await auditOf(id);
    expect(audit.map((a) => a.change_summary)).toEqual([
      expect.stringMatching(/created/),
      expect.stringMatching(/finalized with verdict high/),
    ]);
  });

  it('refuses a second finalize with 409 redteam.run_already_finalized, changing nothing', async () => {
    const id = await newRun();
    expect((await finalize(id)).status).toBe(200);
    const again = await finalize(id, finalizeBody({ verdict: 'low', verdict_reason: 'changed my mind' }));
    expectProblem(again, 409, 'redteam.run_already_finalized');
    const got = await call(app, 'GET', `/v1/redteam-runs/${id}`, { key: org.admin });
    expect(got.body).toMatchObject({ verdict: 'high', verdict_reason: 'three classes had misses' });
    expect(await auditOf(id)).toHaveLength(2);
  });

  it('lets exactly one of concurrent finalizes through', async () => {
    const id = await newRun();
    const verdicts = ['critical', 'high', 'medium', 'low', 'info'];
    const replies = await Promise.all(verdicts.map((verdict) => finalize(id, finalizeBody({ verdict }))));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 200)) expectProblem(r, 409, 'redteam.run_already_finalized');
    const got = await call(app, 'GET', `/v1/redteam-runs/${id}`, { key: org.admin });
    expect(got.body.verdict).toBe(ok[0]!.body.verdict);
    expect(await auditOf(id)).toHaveLength(2);
  });

  it('takes verdict_reason up to 4096 characters, null, or absent', async () => {
    const full = await finalize(await newRun(), finalizeBody({ verdict_reason: 'r'.repeat(4096) }));
    expect(full.status).toBe(200);
    expect(full.body.verdict_reason).toHaveLength(4096);
    const tooLong = await finalize(await newRun(), finalizeBody({ verdict_reason: 'r'.repeat(4097) }));
    expectProblem(tooLong, 400, 'request.validation_failed');
    expect(paths(tooLong)).toEqual(['verdict_reason']);
    const nulled = await finalize(await newRun(), finalizeBody({ verdict_reason: null }));
    expect(nulled.body.verdict_reason).toBeNull();
    const { verdict_reason: _r, ...absent } = finalizeBody();
    const missing = await finalize(await newRun(), absent);
    expect(missing.status).toBe(200);
    expect(missing.body.verdict_reason).toBeNull();
  });

  it.each(['critical', 'high', 'medium', 'low', 'info'])('accepts the verdict %s', async (verdict) => {
    const r = await finalize(await newRun(), finalizeBody({ verdict }));
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe(verdict);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['no finished_at', { finished_at: undefined }, 'finished_at'],
    ['finished_at not RFC 3339', { finished_at: 'yesterday' }, 'finished_at'],
    ['no verdict', { verdict: undefined }, 'verdict'],
    ['an unknown verdict', { verdict: 'severe' }, 'verdict'],
    ['a verdict_reason not a string', { verdict_reason: 42 }, 'verdict_reason'],
    ['an unknown field', { state: 'finished' }, ''],
  ];
  it.each(bad)('refuses %s', async (_what, over, path) => {
    const id = await newRun();
    const r = await finalize(id, JSON.parse(JSON.stringify(finalizeBody(over))));
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)[0]).toBe(path);
    const got = await call(app, 'GET', `/v1/redteam-runs/${id}`, { key: org.admin });
    expect(got.body.state).toBe('running');
  });

  it('refuses finished_at before started_at, and takes it equal', async () => {
    const id = await newRun();
    const early = await finalize(id, finalizeBody({ finished_at: '2026-11-20T09:59:59.999Z' }));
    expectProblem(early, 400, 'request.validation_failed');
    expect(paths(early)).toEqual(['finished_at']);
    expect((await finalize(id, finalizeBody({ finished_at: STARTED }))).status).toBe(200);
  });

  it('answers 404 for an unknown run and for another organization’s, leaving it running', async () => {
    expectProblem(await finalize('rtr_00000000000000000000000000'), 404, 'redteam.run_not_found');
    const foreign = await newRun({}, other.admin);
    expectProblem(await finalize(foreign), 404, 'redteam.run_not_found');
    const got = await call(app, 'GET', `/v1/redteam-runs/${foreign}`, { key: other.admin });
    expect(got.body.state).toBe('running');
    expectProblem(await finalize('rtr_nope'), 400, 'request.validation_failed');
  });

  it('requires redteam:write', async () => {
    const id = await newRun();
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['redteam:read'] });
    expectProblem(await finalize(id, finalizeBody(), secret), 403, 'auth.insufficient_scope');
  });

  it('replays a finalize sent again with the same Idempotency-Key', async () => {
    const id = await newRun();
    const headers = { 'idempotency-key': `fin-${id}` };
    const send = () =>
      call(app, 'POST', `/v1/redteam-runs/${id}:finalize`, { key: org.admin, json: finalizeBody(), headers });
    const a = await send();
    const b = await send();
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
  });
});
