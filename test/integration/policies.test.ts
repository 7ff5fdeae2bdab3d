import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
  other = await buildOrg(app);
});
afterAll(async () => app?.close());

const SSN_TEXT = 'my ssn is 536-22-1234 please file it';
const rule = (over: Record<string, unknown> = {}) => ({
  name: 'block SSNs',
  when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
  then: { action: 'blocked', notify: [] },
  ...over,
});
const body = (over: Record<string, unknown> = {}) => ({
  name: 'p',
  rules: [rule()],
  default_action: 'allowed',
  ...over,
});
const create = (b: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/policies', { key, json: b, headers });
const scan = (
  text: string,
  options: Record<string, unknown> = {},
  context: Record<string, unknown> = {},
  key = org.admin,
) =>
  call(app, 'POST', '/v1/scans', {
    key,
    json: {
      kind: 'content',
      surface: 'user_message',
      content: { type: 'text', text },
      context,
      options: { tier: 'fast', ...options },
    },
  });
const paths = (r: { body: { errors?: { path: string }[] } }) => (r.body.errors ?? []).map((e) => e.path);

async function count(table: string, orgId = org.orgId): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [
    orgId,
  ]);
  return rows[0]!.n;
}

describe('policy CRUD', () => {
  it('creates with every field, generates rule ids, completes detector_config, and audits it', async () => {
    const r = await create(
      body({
        name: 'Support bot',
        mode: 'observe',
        rules: [
          rule(),
          rule({
            id: 'trusted',
            name: 'trusted agents',
            when: { all_of: [{ context: 'agent_id', prefix: 'internal-' }] },
            then: { action: 'allowed' },
          }),
        ],
        default_action: 'warned',
        detector_config: { toxicity: { enabled: false }, pii: { warn_above: 0.1 } },
        allowed_mcp_servers: ['files'],
        blocked_mcp_servers: ['evil'],
        allowed_mcp_tools: [{ server: 'files', tool_name: 'read' }],
        blocked_mcp_tools: [{ server: 'files', tool_name: 'delete' }],
      }),
    );
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/policies/${r.body.id}`);
    expect(r.body.id).toMatch(/^pol_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.body).toMatchObject({
      name: 'Support bot',
      mode: 'observe',
      enabled: true,
      is_default: false,
      default_action: 'warned',
      allowed_mcp_servers: ['files'],
      blocked_mcp_tools: [{ server: 'files', tool_name: 'delete' }],
    });
    expect(r.body.rules[0].id).toMatch(/^rul_/);
    expect(r.body.rules[0].then).toEqual({ action: 'blocked', notify: [] });
    expect(r.body.rules[1]).toMatchObject({ id: 'trusted', then: { action: 'allowed', notify: [] } });
    expect(r.body.detector_config.toxicity).toMatchObject({
      enabled: false,
      warn_above: expect.any(Number),
      block_above: expect.any(Number),
    });
    expect(r.body.detector_config.pii).toMatchObject({ enabled: true, warn_above: 0.1 });
    expect(r.body.revision_id).toMatch(/^rev_/);
    expect(r.body.created_at).toBe(r.body.updated_at);

    const got = await call(app, 'GET', `/v1/policies/${r.body.id}`, { key: org.admin });
    expect(got.body).toEqual(r.body);
    const { rows } = await app.db.query(
      'SELECT change_summary, actor_id FROM audit_events WHERE org_id = $1 AND resource_id = $2',
      [org.orgId, r.body.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].change_summary).toContain(
      'created policy "Support bot" (observe, enabled, 2 rules, default_action warned',
    );
    expect(rows[0].actor_id).toBe(org.adminId);
  });

  it('replace: full body, a new revision, enabled accepted, rule ids kept when echoed, audited with what changed', async () => {
    const created = await create(body({ name: 'before' }));
    const put = await call(app, 'PUT', `/v1/policies/${created.body.id}`, {
      key: org.admin,
      json: body({
        name: 'after',
        enabled: false,
        mode: 'enforce',
        rules: [created.body.rules[0], rule({ id: 'new-rule', name: 'x' })],
      }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: created.body.id,
      name: 'after',
      enabled: false,
      created_at: created.body.created_at,
    });
    expect(put.body.revision_id).not.toBe(created.body.revision_id);
    expect(put.body.rules.map((x: { id: string }) => x.id)).toEqual([created.body.rules[0].id, 'new-rule']);
    const { rows } = await app.db.query(
      "SELECT change_summary FROM audit_events WHERE org_id = $1 AND resource_id = $2 AND change_summary LIKE 'replaced%'",
      [org.orgId, created.body.id],
    );
    expect(rows[0].change_summary).toMatch(/name "before" → "after"; enabled true → false; rules added \[new-rule\]/);
    // Destructive: no history; what is stored is the last body.
    expect((await call(app, 'GET', `/v1/policies/${created.body.id}`, { key: org.admin })).body).toEqual(put.body);
  });

  it('delete: 204, then 404 everywhere, audited', async () => {
    const created = await create(body());
    const del = await call(app, 'DELETE', `/v1/policies/${created.body.id}`, { key: org.admin });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectProblem(
      await call(app, 'GET', `/v1/policies/${created.body.id}`, { key: org.admin }),
      404,
      'policies.not_found',
    );
    expectProblem(
      await call(app, 'DELETE', `/v1/policies/${created.body.id}`, { key: org.admin }),
      404,
      'policies.not_found',
    );
    expectProblem(
      await call(app, 'PUT', `/v1/policies/${created.body.id}`, { key: org.admin, json: body() }),
      404,
      'policies.not_found',
    );
    const { rows } = await app.db.query(
      "SELECT 1 FROM audit_events WHERE org_id = $1 AND resource_id = $2 AND change_summary LIKE 'deleted policy%'",
      [org.orgId, created.body.id],
    );
    expect(rows).toHaveLength(1);
  });

  it('lists newest first with cursors', async () => {
    const mine = await buildOrg(app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(body({ name: `p${i}` }), mine.admin)).body.id);
    const first = await call(app, 'GET', '/v1/policies?limit=2', { key: mine.admin });
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    const seen = [...first.body.data];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await call(app, 'GET', `/v1/policies?limit=2&cursor=${encodeURIComponent(cursor)}`, {
        key: mine.admin,
      });
      seen.push(...next.body.data);
      cursor = next.body.next_cursor;
    }
    expect(seen.map((p) => p.id)).toEqual([...ids].reverse());
    expectProblem(
      await call(app, 'GET', `/v1/policies?cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: other.admin }),
      400,
      'policies.invalid_cursor',
    );
  });

  it('replace and create support Idempotency-Key', async () => {
    const a = await create(body({ name: 'idem' }), org.admin, { 'idempotency-key': 'pol-idem-1' });
    const b = await create(body({ name: 'idem' }), org.admin, { 'idempotency-key': 'pol-idem-1' });
    expect(b.body.id).toBe(a.body.id);
    expectProblem(
      await create(body({ name: 'other' }), org.admin, { 'idempotency-key': 'pol-idem-1' }),
      409,
      'idempotency.key_reused',
    );
    const put1 = await call(app, 'PUT', `/v1/policies/${a.body.id}`, {
      key: org.admin,
      json: body({ name: 'v2' }),
      headers: { 'idempotency-key': 'pol-put-1' },
    });
    const put2 = await call(app, 'PUT', `/v1/policies/${a.body.id}`, {
      key: org.admin,
      json: body({ name: 'v2' }),
      headers: { 'idempotency-key': 'pol-put-1' },
    });
    expect(put2.body.revision_id).toBe(put1.body.revision_id);
  });
});

describe('policy validation', () => {
  const c = (cond: unknown) => body({ rules: [rule({ when: { all_of: [cond] } })] });
  it.each<[string, unknown, string]>([
    ['a missing name', { rules: [], default_action: 'allowed' }, 'name'],
    ['a 121-char name', body({ name: 'x'.repeat(121) }), 'name'],
    ['a blank name', body({ name: '  ' }), 'name'],
    ['missing rules', { name: 'a', default_action: 'allowed' }, 'rules'],
    ['65 rules', body({ rules: Array.from({ length: 65 }, () => rule()) }), 'rules'],
    ['a bad default_action', body({ default_action: 'deny' }), 'default_action'],
    ['a bad mode', body({ mode: 'audit' }), 'mode'],
    ['an unknown field', body({ owner: 'me' }), ''],
    ['a rule without when', body({ rules: [{ name: 'r', then: { action: 'blocked' } }] }), 'rules.0.when'],
    ['when without all_of', body({ rules: [rule({ when: { any_of: [] } })] }), 'rules.0.when'],
    [
      'when with another key',
      body({ rules: [rule({ when: { all_of: [{ surface_in: ['document'] }], extra: 1 } })] }),
      'rules.0.when.extra',
    ],
    ['an empty all_of', body({ rules: [rule({ when: { all_of: [] } })] }), 'rules.0.when.all_of'],
    ['a bad rule action', body({ rules: [rule({ then: { action: 'nuke' } })] }), 'rules.0.then.action'],
    [
      'a bad notify target',
      body({ rules: [rule({ then: { action: 'blocked', notify: ['https://x'] } })] }),
      'rules.0.then.notify.0',
    ],
    ['a repeated rule id', body({ rules: [rule({ id: 'a' }), rule({ id: 'a' })] }), 'rules.1.id'],
    ['a bad rule id', body({ rules: [rule({ id: 'has space' })] }), 'rules.0.id'],
    ['an unknown detector', c({ detector: 'malware', score_above: 0.5 }), 'rules.0.when.all_of.0.detector'],
    ['a score above 1', c({ detector: 'pii', score_above: 1.5 }), 'rules.0.when.all_of.0.score_above'],
    ['a score as a string', c({ detector: 'pii', score_below: '0.5' }), 'rules.0.when.all_of.0.score_below'],
    [
      'two shapes in one condition',
      c({ detector: 'pii', score_above: 0.5, score_below: 0.9 }),
      'rules.0.when.all_of.0',
    ],
    ['no shape', c({ detector: 'pii' }), 'rules.0.when.all_of.0'],
    ['a field of another shape', c({ surface_in: ['document'], detector: 'pii' }), 'rules.0.when.all_of.0.detector'],
    ['a condition that is not an object', c('pii'), 'rules.0.when.all_of.0'],
    ['an empty label_in', c({ detector: 'pii', label_in: [] }), 'rules.0.when.all_of.0.label_in'],
    [
      'a bad min_confidence',
      c({ detector: 'pii', label_in: ['US_SSN'], min_confidence: 2 }),
      'rules.0.when.all_of.0.min_confidence',
    ],
    ['an unknown surface', c({ surface_in: ['email'] }), 'rules.0.when.all_of.0.surface_in.0'],
    ['an unknown context field', c({ context: 'user', equals: 'x' }), 'rules.0.when.all_of.0.context'],
    ['an empty equals', c({ context: 'agent_id', equals: '' }), 'rules.0.when.all_of.0.equals'],
    ['a non-boolean present', c({ context: 'agent_id', present: 'yes' }), 'rules.0.when.all_of.0.present'],
    ['a negative length', c({ content_length_above: -1 }), 'rules.0.when.all_of.0.content_length_above'],
    [
      'a nested error',
      c({ any_of: [{ surface_in: ['document'] }, { not: { detector: 'pii', score_above: 7 } }] }),
      'rules.0.when.all_of.0.any_of.1.not.score_above',
    ],
    [
      'nesting too deep',
      c({ not: { not: { not: { not: { not: { not: { surface_in: ['document'] } } } } } } }),
      'rules.0.when.all_of.0.not.not.not.not.not.not',
    ],
    [
      'too many conditions in a rule',
      c({ any_of: Array.from({ length: 64 }, () => ({ surface_in: ['document'] })) }),
      'rules.0.when.all_of',
    ],
    [
      'an unknown detector in detector_config',
      body({ detector_config: { malware: { enabled: true } } }),
      'detector_config.malware',
    ],
    [
      'warn above flag',
      body({ detector_config: { pii: { warn_above: 0.9, flag_above: 0.5, block_above: 0.95 } } }),
      'detector_config.pii',
    ],
    [
      'a threshold above 1',
      body({ detector_config: { pii: { block_above: 1.01 } } }),
      'detector_config.pii.block_above',
    ],
    [
      'a negative threshold',
      body({ detector_config: { pii: { warn_above: -0.1 } } }),
      'detector_config.pii.warn_above',
    ],
    [
      '201 blocked servers',
      body({ blocked_mcp_servers: Array.from({ length: 201 }, (_, i) => `s${i}`) }),
      'blocked_mcp_servers',
    ],
    ['a 256-char server', body({ allowed_mcp_servers: ['x'.repeat(256)] }), 'allowed_mcp_servers.0'],
    [
      '501 allowed tools',
      body({ allowed_mcp_tools: Array.from({ length: 501 }, (_, i) => ({ server: 's', tool_name: `t${i}` })) }),
      'allowed_mcp_tools',
    ],
    ['a tool without a name', body({ blocked_mcp_tools: [{ server: 's' }] }), 'blocked_mcp_tools.0.tool_name'],
  ])('rejects %s with 400 naming the JSON path', async (_label, b, path) => {
    const before = await count('policies');
    const r = await create(b);
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toContain(path);
    expect(await count('policies')).toBe(before);
  });

  it('lists every error of a body at once', async () => {
    const r = await create(
      body({ name: '', rules: [rule({ when: { all_of: [{ detector: 'x', score_above: 2 }] } })] }),
    );
    expect(paths(r)).toEqual(
      expect.arrayContaining(['name', 'rules.0.when.all_of.0.detector', 'rules.0.when.all_of.0.score_above']),
    );
  });

  it('accepts every limit at its bound', async () => {
    const deep = { not: { not: { not: { not: { not: { surface_in: ['document'] } } } } } };
    const r = await create(
      body({
        name: 'x'.repeat(120),
        rules: [
          rule({
            when: { all_of: [deep, { any_of: Array.from({ length: 57 }, () => ({ surface_in: ['document'] })) }] },
          }),
          ...Array.from({ length: 63 }, () => rule()),
        ],
        detector_config: {
          pii: { warn_above: 0, flag_above: 0, block_above: 0 },
          toxicity: { warn_above: 1, flag_above: 1, block_above: 1 },
        },
        allowed_mcp_servers: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(255, 'x')),
        blocked_mcp_servers: Array.from({ length: 200 }, (_, i) => `b${i}`),
        allowed_mcp_tools: Array.from({ length: 500 }, (_, i) => ({ server: 's', tool_name: `t${i}` })),
        blocked_mcp_tools: Array.from({ length: 500 }, (_, i) => ({ server: 'x'.repeat(255), tool_name: `t${i}` })),
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.rules).toHaveLength(64);
  });
});

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
    expect((await s('write to bob@example.com', { policy_id: strict.id })).body.decision).toMatchObject({
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

describe('backtest', () => {
  it('counts stored scans per (previous → new) action with samples, and persists nothing', async () => {
    const mine = await buildOrg(app);
    const since = new Date(Date.now() - 60_000).toISOString();
    const ids: string[] = [];
    for (const t of [SSN_TEXT, SSN_TEXT, 'hello', 'hello', 'hello'])
      ids.push((await scan(t, {}, {}, mine.admin)).body.id);
    const p = (await create(body({ rules: [rule({ id: 'ssn' })], default_action: 'warned' }), mine.admin)).body;
    const before = await count('scans', mine.orgId);
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: mine.admin,
      json: { since, until: new Date(Date.now() + 60_000).toISOString(), samples: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      policy_id: p.id,
      revision_id: p.revision_id,
      scans_evaluated: 5,
      changed: 5,
      truncated_at_scan_id: null,
    });
    const byPair = Object.fromEntries(
      r.body.transitions.map((t: { previous_action: string; new_action: string; count: number }) => [
        `${t.previous_action}>${t.new_action}`,
        t.count,
      ]),
    );
    expect(byPair['allowed>warned']).toBe(3);
    expect(
      Object.entries(byPair)
        .filter(([k]) => k.endsWith('>blocked'))
        .reduce((n, [, v]) => n + (v as number), 0),
    ).toBe(2);
    for (const t of r.body.transitions) expect(t.sample_scan_ids).toHaveLength(1);
    expect(await count('scans', mine.orgId)).toBe(before);
    // max_scans stops early and says where.
    const capped = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: mine.admin,
      json: { since, until: new Date(Date.now() + 60_000).toISOString(), max_scans: 2 },
    });
    expect(capped.body).toMatchObject({ scans_evaluated: 2, truncated_at_scan_id: ids[1] });
    // Another organization's scans are not counted, and its policy is not reachable.
    expectProblem(
      await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
        key: other.admin,
        json: { since, until: new Date().toISOString() },
      }),
      404,
      'policies.not_found',
    );
  });

  const window = { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' };
  it.each<[string, unknown, string]>([
    ['an inverted window', { since: window.until, until: window.since }, 'until'],
    ['a missing since', { until: window.until }, 'since'],
    ['a malformed until', { since: window.since, until: 'tomorrow' }, 'until'],
    ['21 samples', { ...window, samples: 21 }, 'samples'],
    ['max_scans 0', { ...window, max_scans: 0 }, 'max_scans'],
    ['max_scans over 10,000,000', { ...window, max_scans: 10_000_001 }, 'max_scans'],
    ['an unknown field', { ...window, dry_run: true }, ''],
  ])('rejects %s', async (_l, b, path) => {
    const p = (await create(body())).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, { key: org.admin, json: b });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toContain(path);
  });

  it('accepts samples 0 and max_scans 10,000,000', async () => {
    const p = (await create(body())).body;
    const r = await call(app, 'POST', `/v1/policies/${p.id}:backtest`, {
      key: org.admin,
      json: { ...window, samples: 0, max_scans: 10_000_000 },
    });
    expect(r.status).toBe(200);
  });
});

describe('tenancy and scopes', () => {
  it('another organization cannot read, list, replace, delete, simulate or scan with a policy', async () => {
    const p = (await create(body({ name: 'secret policy' }))).body;
    const stored = await scan('hello');
    expectProblem(await call(app, 'GET', `/v1/policies/${p.id}`, { key: other.admin }), 404, 'policies.not_found');
    expect(
      (await call(app, 'GET', '/v1/policies?limit=200', { key: other.admin })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).not.toContain(p.id);
    expectProblem(
      await call(app, 'PUT', `/v1/policies/${p.id}`, { key: other.admin, json: body() }),
      404,
      'policies.not_found',
    );
    expectProblem(await call(app, 'DELETE', `/v1/policies/${p.id}`, { key: other.admin }), 404, 'policies.not_found');
    expectProblem(
      await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
        key: other.admin,
        json: { surface: 'user_message', findings: [] },
      }),
      404,
      'policies.not_found',
    );
    expectProblem(await scan('hello', { policy_id: p.id }, {}, other.admin), 404, 'policies.not_found');
    // Its own policy cannot re-evaluate our scan.
    const theirs = (await create(body(), other.admin)).body;
    expectProblem(
      await call(app, 'POST', `/v1/policies/${theirs.id}:simulate`, {
        key: other.admin,
        json: { scan_id: stored.body.id },
      }),
      404,
      'scans.not_found',
    );
    expect((await call(app, 'GET', `/v1/policies/${p.id}`, { key: org.admin })).body.name).toBe('secret policy');
    // A default policy of theirs does not decide our scans.
    await create(body({ rules: [], default_action: 'blocked', is_default: true }), other.admin);
    const ours = await buildOrg(app);
    expect((await scan('hello', {}, {}, ours.admin)).body.decision.action).toBe('allowed');
  });

  it('reads need policies:read, writes policies:write', async () => {
    const reader = (await buildApiKey(app, org.orgId, { scopes: ['policies:read'] })).secret;
    const writer = (await buildApiKey(app, org.orgId, { scopes: ['policies:write'] })).secret;
    const p = (await create(body())).body;
    expect((await call(app, 'GET', `/v1/policies/${p.id}`, { key: reader })).status).toBe(200);
    expect(
      (
        await call(app, 'POST', `/v1/policies/${p.id}:simulate`, {
          key: reader,
          json: { surface: 'user_message', findings: [] },
        })
      ).status,
    ).toBe(200);
    const denied = await create(body(), reader);
    expectProblem(denied, 403, 'auth.insufficient_scope');
    expect(denied.body.detail).toContain('policies:write');
    expectProblem(await call(app, 'DELETE', `/v1/policies/${p.id}`, { key: reader }), 403, 'auth.insufficient_scope');
    expectProblem(await call(app, 'GET', '/v1/policies', { key: writer }), 403, 'auth.insufficient_scope');
    expect((await create(body(), writer)).status).toBe(201);
  });

  it('answers 405 with Allow, and 400 for a malformed id', async () => {
    const r = await call(app, 'PATCH', '/v1/policies/pol_01HZZZZZZZZZZZZZZZZZZZZZZZ', { key: org.admin, json: {} });
    expectProblem(r, 405, 'request.method_not_allowed');
    expect(r.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    expectProblem(
      await call(app, 'GET', '/v1/policies/pol_nope', { key: org.admin }),
      400,
      'request.validation_failed',
    );
  });
});
