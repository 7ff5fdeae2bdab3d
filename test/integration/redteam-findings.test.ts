import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import {
  addFindings,
  app,
  auditOf,
  finalize,
  finding,
  insertLabeledEvent,
  newRun,
  org,
  other,
  paths,
  useRedteamApp,
} from './redteam-fixture.ts';

useRedteamApp();

const listFindings = (runId: string, query = '', key = org.admin) =>
  call(app, 'GET', `/v1/redteam-runs/${runId}/findings${query}`, { key });

describe('POST /v1/redteam-runs/{run_id}/findings', () => {
  it('adds findings and answers {accepted, finding_ids}; the list returns them, newest first', async () => {
    const id = await newRun();
    const event = await insertLabeledEvent(org.orgId);
    const r = await addFindings(id, [
      finding(),
      finding({ attack_class: 'pii_exfiltration', severity: 'critical', representative_event_id: event }),
    ]);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ accepted: 2, finding_ids: [expect.any(String), expect.any(String)] });
    for (const f of r.body.finding_ids) expect(f).toMatch(/^rtf_[0-9A-HJKMNP-TV-Z]{26}$/);
    const list = await listFindings(id);
    expect(list.status).toBe(200);
    expect(list.body.next_cursor).toBeNull();
    expect(list.body.data.map((f: { finding_id: string }) => f.finding_id)).toEqual([...r.body.finding_ids].reverse());
    expect(list.body.data[0]).toEqual({
      finding_id: r.body.finding_ids[1],
      run_id: id,
      ...finding({ attack_class: 'pii_exfiltration', severity: 'critical', representative_event_id: event }),
      created_at: expect.stringMatching(/Z$/),
    });
    expect((await auditOf(id)).at(-1)!.change_summary).toMatch(/2 red-team finding\(s\) added/);
  });

  it('takes 1 to 100 findings per call: 0 and 101 are refused, 100 accepted', async () => {
    const id = await newRun();
    const none = await addFindings(id, []);
    expectProblem(none, 400, 'request.validation_failed');
    expect(paths(none)).toEqual(['findings']);
    const many = await addFindings(
      id,
      Array.from({ length: 101 }, () => finding()),
    );
    expectProblem(many, 400, 'request.validation_failed');
    expect(paths(many)).toEqual(['findings']);
    const full = await addFindings(
      id,
      Array.from({ length: 100 }, (_, i) => finding({ title: `f${i}` })),
    );
    expect(full.status).toBe(201);
    expect(full.body.accepted).toBe(100);
    const p1 = await listFindings(id, '?limit=60');
    const p2 = await listFindings(id, `?limit=60&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p1.body.data).toHaveLength(60);
    expect(p2.body.data).toHaveLength(40);
    expect(p2.body.next_cursor).toBeNull();
    expect(new Set([...p1.body.data, ...p2.body.data].map((f: { title: string }) => f.title)).size).toBe(100);
  });

  it('defaults framework_refs to [] and representative_event_id to null', async () => {
    const id = await newRun();
    const { framework_refs: _f, representative_event_id: _e, ...bare } = finding();
    expect((await addFindings(id, [bare])).status).toBe(201);
    const list = await listFindings(id);
    expect(list.body.data[0]).toMatchObject({ framework_refs: [], representative_event_id: null });
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['no attack_class', { attack_class: undefined }, 'attack_class'],
    ['an empty attack_class', { attack_class: '' }, 'attack_class'],
    ['a long attack_class', { attack_class: 'a'.repeat(129) }, 'attack_class'],
    ['an unknown severity', { severity: 'urgent' }, 'severity'],
    ['no title', { title: undefined }, 'title'],
    ['a long title', { title: 't'.repeat(256) }, 'title'],
    ['no description', { description: undefined }, 'description'],
    ['a long description', { description: 'd'.repeat(8193) }, 'description'],
    ['framework_refs not an array', { framework_refs: {} }, 'framework_refs'],
    ['too many framework_refs', { framework_refs: Array(33).fill({ framework: 'f', id: 'i' }) }, 'framework_refs'],
    ['a framework_ref without id', { framework_refs: [{ framework: 'owasp' }] }, 'framework_refs.0.id'],
    [
      'a long framework name',
      { framework_refs: [{ framework: 'f'.repeat(65), id: 'i' }] },
      'framework_refs.0.framework',
    ],
    ['a long framework id', { framework_refs: [{ framework: 'f', id: 'i'.repeat(129) }] }, 'framework_refs.0.id'],
    [
      'a framework_ref with extra fields',
      { framework_refs: [{ framework: 'f', id: 'i', url: 'x' }] },
      'framework_refs.0',
    ],
    [
      'a representative_event_id not lev_',
      { representative_event_id: 'rtr_00000000000000000000000000' },
      'representative_event_id',
    ],
    ['no remediation_class', { remediation_class: undefined }, 'remediation_class'],
    ['a long remediation_class', { remediation_class: 'r'.repeat(129) }, 'remediation_class'],
    ['an unknown field', { status: 'open' }, ''],
  ];
  it.each(bad)('refuses %s', async (_what, over, path) => {
    const id = await newRun();
    const r = await addFindings(id, [finding(), JSON.parse(JSON.stringify(finding(over)))]);
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)[0]).toBe(['findings', '1', path].filter(Boolean).join('.'));
    expect((await listFindings(id)).body.data).toHaveLength(0);
  });

  it('accepts every string exactly at its bound', async () => {
    const r = await addFindings(await newRun(), [
      finding({
        attack_class: 'a'.repeat(128),
        title: 't'.repeat(255),
        description: 'd'.repeat(8192),
        framework_refs: Array(32).fill({ framework: 'f'.repeat(64), id: 'i'.repeat(128) }),
        remediation_class: 'r'.repeat(128),
      }),
    ]);
    expect(r.status).toBe(201);
  });

  it('refuses a representative_event_id naming no labeled event of the organization, adding none', async () => {
    const id = await newRun();
    const mine = await insertLabeledEvent(org.orgId);
    const foreign = await insertLabeledEvent(other.orgId);
    const r = await addFindings(id, [
      finding({ representative_event_id: mine }),
      finding({ representative_event_id: foreign }),
      finding({ representative_event_id: 'lev_00000000000000000000000000' }),
    ]);
    expectProblem(r, 400, 'redteam.unknown_event');
    expect(paths(r)).toEqual(['findings.1.representative_event_id', 'findings.2.representative_event_id']);
    expect((await listFindings(id)).body.data).toHaveLength(0);
  });

  it('refuses findings on a finished run with 409', async () => {
    const id = await newRun();
    expect((await finalize(id)).status).toBe(200);
    expectProblem(await addFindings(id, [finding()]), 409, 'redteam.run_already_finalized');
    expect((await listFindings(id)).body.data).toHaveLength(0);
  });

  it('never lands findings on a run once a concurrent finalize answered', async () => {
    const id = await newRun();
    const [a, b, f, c] = await Promise.all([
      addFindings(id, [finding({ title: 'a' })]),
      addFindings(id, [finding({ title: 'b' })]),
      finalize(id),
      addFindings(id, [finding({ title: 'c' })]),
    ]);
    expect(f!.status).toBe(200);
    const adds = [a!, b!, c!];
    // Each add either committed before the finalize took the lock (and landed) or saw the finished run.
    for (const r of adds) if (r.status !== 201) expectProblem(r, 409, 'redteam.run_already_finalized');
    const landed = (await listFindings(id)).body.data.map((x: { title: string }) => x.title).sort();
    const accepted = ['a', 'b', 'c'].filter((_, i) => adds[i]!.status === 201);
    expect(landed).toEqual(accepted);
    expectProblem(await addFindings(id, [finding()]), 409, 'redteam.run_already_finalized');
  });

  it('answers 404 for an unknown or foreign run (add and list)', async () => {
    const foreign = await newRun({}, other.admin);
    expectProblem(await addFindings(foreign, [finding()]), 404, 'redteam.run_not_found');
    expectProblem(await listFindings(foreign), 404, 'redteam.run_not_found');
    expectProblem(await addFindings('rtr_00000000000000000000000000', [finding()]), 404, 'redteam.run_not_found');
    expect((await listFindings(foreign, '', other.admin)).body.data).toHaveLength(0);
  });

  it('requires redteam:write to add and redteam:read to list', async () => {
    const id = await newRun();
    const reader = await buildApiKey(app, org.orgId, { scopes: ['redteam:read'] });
    const writer = await buildApiKey(app, org.orgId, { scopes: ['redteam:write'] });
    expectProblem(await addFindings(id, [finding()], reader.secret), 403, 'auth.insufficient_scope');
    expectProblem(await listFindings(id, '', writer.secret), 403, 'auth.insufficient_scope');
    expect((await addFindings(id, [finding()], writer.secret)).status).toBe(201);
    expect((await listFindings(id, '', reader.secret)).body.data).toHaveLength(1);
  });

  it('refuses a findings cursor of another run list or organization', async () => {
    const id = await newRun();
    await addFindings(id, [finding(), finding()]);
    const p1 = await listFindings(id, '?limit=1');
    expectProblem(await listFindings(id, '?cursor=abc.def'), 400, 'redteam_findings.invalid_cursor');
    const runs = await call(app, 'GET', `/v1/redteam-runs?cursor=${encodeURIComponent(p1.body.next_cursor)}`, {
      key: org.admin,
    });
    expectProblem(runs, 400, 'redteam_runs.invalid_cursor');
  });
});
