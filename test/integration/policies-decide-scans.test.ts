// Policies applied to scans: named and default policies, MCP lists, detector_config, observe mode, streams.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem, type TestOrg } from '../support/harness.ts';
import { app, body, create, rule, scan, SSN_TEXT, usePoliciesApp } from './policies-fixture.ts';

usePoliciesApp();

describe('policies decide scans', () => {
  let scoped: TestOrg;
  beforeAll(async () => {
    scoped = await buildOrg(app);
  });
  const mk = (b: Record<string, unknown>) => create(body(b), scoped.admin).then((r) => r.body);
  const s = (text: string, options: Record<string, unknown> = {}, context: Record<string, unknown> = {}) =>
    scan(text, options, context, scoped.admin);

  it('without a policy: the built-in thresholds', async () => {
    const r = await s(SSN_TEXT);
    expect(r.body.decision).toMatchObject({ policy_id: null, policy_revision_id: null, matched_rule_id: null });
    expect(r.body.decision.reason).toMatch(/score_threshold|below_thresholds/);
  });

  it('options.policy_id applies a named policy: a rule match', async () => {
    const p = await mk({ rules: [rule({ id: 'ssn' })] });
    const r = await s(SSN_TEXT, { policy_id: p.id });
    expect(r.status).toBe(201);
    expect(r.body.decision).toEqual({
      action: 'blocked',
      reason: 'rule_matched',
      policy_id: p.id,
      policy_revision_id: p.revision_id,
      matched_rule_id: 'ssn',
      triggering_finding: 'pii:US_SSN',
    });
    const stored = await call(app, 'GET', `/v1/scans/${r.body.id}`, { key: scoped.admin });
    expect(stored.body.decision).toEqual(r.body.decision);
  });

  it('the default policy applies to scans that name none; a replace takes effect on the next scan', async () => {
    const p = await mk({ rules: [], default_action: 'flagged', is_default: true });
    expect((await s('hello there')).body.decision).toMatchObject({
      action: 'flagged',
      reason: 'default_action',
      policy_id: p.id,
    });
    const put = await call(app, 'PUT', `/v1/policies/${p.id}`, {
      key: scoped.admin,
      json: body({ rules: [], default_action: 'warned' }),
    });
    expect(put.body.is_default).toBe(true); // absent is_default keeps it
    expect((await s('hello there')).body.decision).toMatchObject({
      action: 'warned',
      policy_revision_id: put.body.revision_id,
    });
    // A second default takes over; the first stops being one.
    const q = await mk({ rules: [], default_action: 'allowed', is_default: true });
    expect((await call(app, 'GET', `/v1/policies/${p.id}`, { key: scoped.admin })).body.is_default).toBe(false);
    expect((await s('hello there')).body.decision).toMatchObject({
      action: 'allowed',
      reason: 'default_action',
      policy_id: q.id,
    });
    // Disabled: scans get the built-in thresholds again; naming it falls back the same way.
    await call(app, 'PUT', `/v1/policies/${q.id}`, {
      key: scoped.admin,
      json: body({ rules: [], default_action: 'blocked', enabled: false }),
    });
    expect((await s('hello there')).body.decision).toMatchObject({ action: 'allowed', policy_id: null });
    expect((await s('hello there', { policy_id: q.id })).body.decision).toMatchObject({
      action: 'allowed',
      policy_id: null,
    });
    await call(app, 'DELETE', `/v1/policies/${q.id}`, { key: scoped.admin });
    expect((await s('hello there')).body.decision.policy_id).toBeNull();
  });

  it('MCP lists: a blocked server, a server outside the allow list, a blocked tool in a toolset', async () => {
    const p = await mk({
      rules: [
        rule({
          then: { action: 'allowed' },
          when: { all_of: [{ surface_in: ['tool_result', 'mcp_tool_description'] }] },
        }),
      ],
      blocked_mcp_servers: ['evil'],
      allowed_mcp_servers: ['files', 'evil'],
      blocked_mcp_tools: [{ server: 'files', tool_name: 'delete' }],
    });
    const tr = (server: string) =>
      call(app, 'POST', '/v1/scans', {
        key: scoped.admin,
        json: {
          kind: 'content',
          surface: 'tool_result',
          content: { type: 'text', text: 'ok' },
          context: { mcp_server: server },
          options: { policy_id: p.id, tier: 'fast' },
        },
      });
    expect((await tr('evil')).body.decision).toMatchObject({
      action: 'blocked',
      reason: 'mcp_server_blocked',
      triggering_finding: 'mcp:evil',
    });
    expect((await tr('web')).body.decision).toMatchObject({
      action: 'blocked',
      reason: 'mcp_server_not_allowed',
      triggering_finding: 'mcp:web',
    });
    expect((await tr('files')).body.decision).toMatchObject({ action: 'allowed', reason: 'rule_matched' });
    const ts = await call(app, 'POST', '/v1/scans', {
      key: scoped.admin,
      json: {
        kind: 'toolset',
        surface: 'mcp_tool_description',
        content: {
          type: 'toolset',
          tools: [
            { server: 'files', name: 'read', description: 'Reads.' },
            { server: 'files', name: 'delete', description: 'Deletes.' },
          ],
        },
        options: { policy_id: p.id, tier: 'fast' },
      },
    });
    expect(ts.body.decision).toMatchObject({
      action: 'blocked',
      reason: 'mcp_tool_blocked',
      triggering_finding: 'mcp:files/delete',
    });
  });

  it('detector_config: thresholds, and a disabled detector does not run unless named', async () => {
    const strict = await mk({
      rules: [],
      detector_config: { pii: { warn_above: 0.01, flag_above: 0.02, block_above: 0.03 } },
    });
    expect((await s('my address is bob@example.com', { policy_id: strict.id })).body.decision).toMatchObject({
      action: 'blocked',
      reason: 'score_threshold',
      triggering_finding: 'pii:EMAIL_ADDRESS',
    });
    const off = await mk({ rules: [], default_action: 'allowed', detector_config: { pii: { enabled: false } } });
    const r = await s(SSN_TEXT, { policy_id: off.id });
    expect(r.body.findings.map((f: { detector: string }) => f.detector)).not.toContain('pii');
    expect(r.body.decision).toMatchObject({ action: 'allowed', reason: 'default_action' });
    const named = await s(SSN_TEXT, { policy_id: off.id, detectors: ['pii'] });
    expect(named.body.findings.map((f: { detector: string }) => f.detector)).toContain('pii');
    expect(named.body.decision.action).toBe('allowed'); // reported, but its thresholds do not decide
  });

  it('observe mode never blocks; the would-be action is stored', async () => {
    const p = await mk({ mode: 'observe', rules: [rule({ id: 'ssn' })] });
    const r = await s(SSN_TEXT, { policy_id: p.id });
    expect(r.body.decision).toMatchObject({
      action: 'allowed',
      reason: 'observe_mode',
      observed_action: 'blocked',
      observed_reason: 'rule_matched',
      matched_rule_id: 'ssn',
    });
    const { rows } = await app.db.query('SELECT action, observed_action FROM scans WHERE org_id = $1 AND id = $2', [
      scoped.orgId,
      r.body.id,
    ]);
    expect(rows[0]).toEqual({ action: 'allowed', observed_action: 'blocked' });
  });

  it('a streamed scan uses the policy too, and an unknown policy is a plain 404 before the stream', async () => {
    const p = await mk({ rules: [rule({ id: 'ssn' })] });
    const res = await fetch(`${app.baseUrl}/v1/scans`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${scoped.admin}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        kind: 'content',
        surface: 'user_message',
        content: { type: 'text', text: SSN_TEXT },
        options: { policy_id: p.id, tier: 'fast' },
      }),
    });
    const text = await res.text();
    expect(text).toContain('"matched_rule_id":"ssn"');
    const missing = await s('x', { policy_id: 'pol_01HZZZZZZZZZZZZZZZZZZZZZZZ' });
    expectProblem(missing, 404, 'policies.not_found');
  });
});
