// Policies :simulate: a stored scan or given findings re-evaluated under a policy, nothing persisted.
import { describe, expect, it } from 'vitest';
import { call, expectProblem } from '../support/harness.ts';
import { app, body, count, create, org, paths, rule, scan, SSN_TEXT, usePoliciesApp } from './policies-fixture.ts';

usePoliciesApp();

describe('simulate', () => {
  it('re-evaluates a stored scan, returns the diff, and persists nothing', async () => {
    const stored = await scan(SSN_TEXT);
    const p = (await create(body({ rules: [rule({ id: 'ssn', name: 'no SSNs' })] }))).body;
    const before = await Promise.all(['scans', 'audit_events', 'policies'].map((t) => count(t)));
    const r = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
      key: org.admin,
      json: { scan_id: stored.body.id },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      decision: {
        action: 'blocked',
        reason: 'rule_matched',
        policy_id: p.id,
        policy_revision_id: p.revision_id,
        matched_rule_id: 'ssn',
        triggering_finding: 'pii:US_SSN',
      },
      matched_rule: { rule_id: 'ssn', rule_name: 'no SSNs' },
      diff_from_current: {
        previous_action: stored.body.decision.action,
        previous_revision_id: null,
        new_action: 'blocked',
      },
    });
    // The bare ULID works too.
    const bare = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
      key: org.admin,
      json: { scan_id: stored.body.id.slice(5) },
    });
    expect(bare.body.decision.action).toBe('blocked');
    expect(await Promise.all(['scans', 'audit_events', 'policies'].map((t) => count(t)))).toEqual(before);
  });

  it('evaluates given findings, against what the organization gets now', async () => {
    const p = (
      await create(
        body({
          rules: [
            rule({
              id: 'inj',
              name: 'injection',
              when: { all_of: [{ detector: 'prompt_injection', score_above: 0.5 }, { surface_in: ['tool_result'] }] },
            }),
          ],
        }),
      )
    ).body;
    const findings = [
      {
        detector: 'prompt_injection',
        items: [{ text: 'x', label: 'prompt_injection', confidence: 0.9, source: 'model', span: [0, 1] }],
        frameworks: { owasp_llm: ['LLM01'] },
      },
    ];
    const r = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
      key: org.admin,
      json: { surface: 'tool_result', findings },
    });
    expect(r.body.decision).toMatchObject({
      action: 'blocked',
      matched_rule_id: 'inj',
      triggering_finding: 'prompt_injection:prompt_injection',
    });
    expect(r.body.diff_from_current).toMatchObject({ new_action: 'blocked', previous_revision_id: null });
    const other = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
      key: org.admin,
      json: { surface: 'user_message', findings },
    });
    // Not a tool result: the rule does not match; the built-in thresholds decide.
    expect(other.body).toMatchObject({
      matched_rule: null,
      decision: { reason: 'score_threshold', matched_rule_id: null },
    });
  });

  it('scan_id with findings: the scan with its findings replaced', async () => {
    const stored = await scan('nothing to see');
    const p = (await create(body({ rules: [rule({ id: 'ssn' })] }))).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
      key: org.admin,
      json: { scan_id: stored.body.id, findings: [{ detector: 'pii', items: [{ label: 'US_SSN', confidence: 0.9 }] }] },
    });
    expect(r.body.decision.matched_rule_id).toBe('ssn');
    expect(r.body.diff_from_current.previous_action).toBe('allowed');
  });

  it.each<[string, unknown, string]>([
    ['an empty body', {}, 'surface'],
    ['findings without surface', { findings: [] }, 'surface'],
    [
      'an unknown detector',
      { surface: 'user_message', findings: [{ detector: 'x', items: [] }] },
      'findings.0.detector',
    ],
    ['a bad scan id', { scan_id: 'scan_123' }, 'scan_id'],
    [
      'a confidence above 1',
      { surface: 'user_message', findings: [{ detector: 'pii', items: [{ label: 'A', confidence: 3 }] }] },
      'findings.0.items.0.confidence',
    ],
  ])('rejects %s', async (_l, b, path) => {
    const p = (await create(body())).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:simulate`, { key: org.admin, json: b });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toContain(path);
  });
});
