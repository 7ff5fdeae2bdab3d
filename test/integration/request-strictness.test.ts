/**
 * Requests that were answered 2xx with something other than what was sent (issue 36, item 8): a
 * `__proto__` name dropped, a repeated name's last value taken, numbers a double cannot hold stored
 * as null or rounded, query parameters ignored outside the lists. Each is now a 400 naming where,
 * and nothing is stored. docs/api.md, Request body and Query parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let org: TestOrg;
beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

/** JSON text of `value` with every name `KEY` written as `name` (JSON.stringify cannot write these bodies). */
const withName = (value: unknown, name: string) => JSON.stringify(value).replaceAll('"KEY"', JSON.stringify(name));

const policy = {
  name: 'strict policy',
  rules: [],
  default_action: 'allowed',
  detector_config: { toxicity: { block_above: 0.95 }, KEY: { block_above: 0.95 } },
};
const redactionPolicy = {
  field_rules: { EMAIL_ADDRESS: 'hash', KEY: 'pass_through' },
  default_obfuscation: 'redact',
  override_allowed_for_reviewers: false,
  redaction_version: 'redactor-v1.0.0',
};
const run = {
  scope_hash: 'c'.repeat(64),
  upload_enabled: false,
  training_consent: false,
  written_authorization: true,
  attached_authenticated: false,
  started_at: '2026-11-20T10:00:00Z',
  model_versions: { 'pi-fast': '1.0.0', KEY: '9.9.9' },
  corpus_hashes: { builtin: 'd'.repeat(64) },
  redteam_version: 'strictness 1.0',
};
const labeledEvents = (runId: string, tokensUsed: unknown) => ({
  events: [
    {
      source: 'redteam',
      observed_at: '2026-11-20T10:00:00Z',
      input: 'a probe',
      output: 'an answer',
      verdict: 'allowed',
      severity: 'info',
      source_data: {
        run_id: runId,
        iteration_index: 0,
        attack_class: 'direct_injection',
        attack_subclass: 'override',
        corpus_entry_id: 'builtin-1',
        tokens_used: tokensUsed,
      },
    },
  ],
});

describe('names JSON.parse would let through', () => {
  it('__proto__ in field_rules, detector_config, model_versions and tokens_used: 400 request.forbidden_key at its path, nothing stored', async () => {
    const created = await call(app, 'POST', '/v1/redteam-runs', {
      key: org.admin,
      json: { ...run, model_versions: {} },
    });
    expect(created.status).toBe(201);
    const runId = created.body.run_id as string;
    const before = await app.db.query('SELECT count(*)::int AS n FROM policies WHERE org_id = $1', [org.orgId]);
    const redaction = (await call(app, 'GET', '/v1/org/redaction-policy', { key: org.admin })).body;
    const cases: [string, string, string, string][] = [
      ['POST', '/v1/policies', withName(policy, '__proto__'), 'detector_config.__proto__'],
      ['PUT', '/v1/org/redaction-policy', withName(redactionPolicy, '__proto__'), 'field_rules.__proto__'],
      ['POST', '/v1/redteam-runs', withName(run, '__proto__'), 'model_versions.__proto__'],
      [
        'POST',
        '/v1/labeled-events',
        withName(labeledEvents(runId, { prompt: 1, KEY: 2 }), '__proto__'),
        'events.0.source_data.tokens_used.__proto__',
      ],
    ];
    for (const [method, path, raw, at] of cases) {
      const r = await call(app, method, path, { key: org.admin, raw });
      expectProblem(r, 400, 'request.forbidden_key');
      expect(r.body.errors, `${method} ${path}`).toEqual([{ path: at, message: expect.stringContaining('__proto__') }]);
    }
    // An escaped spelling is the same name.
    const escaped = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      raw: withName(policy, '__proto__').replace('"__proto__"', '"\\u005f_proto__"'),
    });
    expectProblem(escaped, 400, 'request.forbidden_key');
    const after = await app.db.query('SELECT count(*)::int AS n FROM policies WHERE org_id = $1', [org.orgId]);
    expect(after.rows[0]).toEqual(before.rows[0]);
    expect((await call(app, 'GET', '/v1/org/redaction-policy', { key: org.admin })).body).toEqual(redaction);
  });

  it('a name given twice in one object (escapes decoded): 400 request.duplicate_key, at any depth', async () => {
    const cases: [string, string][] = [
      [withName(policy, 'toxicity'), 'detector_config.toxicity'],
      [JSON.stringify(policy).replace('"rules"', '"name":"again","rules"'), 'name'],
      [
        withName(policy, 'tox\\u0069city').replace('"tox\\\\u0069city"', '"tox\\u0069city"'),
        'detector_config.toxicity',
      ],
    ];
    for (const [raw, at] of cases) {
      const r = await call(app, 'POST', '/v1/policies', { key: org.admin, raw });
      expectProblem(r, 400, 'request.duplicate_key');
      expect(r.body.errors).toEqual([{ path: at, message: expect.any(String) }]);
    }
    // The same name in two different objects is no repeat.
    const ok = await call(app, 'POST', '/v1/policies', { key: org.admin, raw: withName(policy, 'pii') });
    expect(ok.status, ok.text).toBe(201);
  });
});

describe('numbers a double cannot hold', () => {
  it('1e400, integers past 2^53 − 1 and a nonzero number read as 0: 400 request.number_out_of_range naming the path, nothing stored', async () => {
    // `scope_redacted` is JSON kept as sent: these used to be stored as null, rounded, or 0.
    const withScope = (n: string) =>
      JSON.stringify({ ...run, scope_redacted: { env: 'prod', limit: 0 } }).replace('"limit":0', `"limit":${n}`);
    const runs = async () =>
      (await app.db.query('SELECT count(*)::int AS n FROM redteam_runs WHERE org_id = $1', [org.orgId])).rows[0].n;
    const before = await runs();
    for (const n of ['1e400', '-1e400', '123456789012345678901234567890', '9007199254740992', '-1e-400']) {
      const r = await call(app, 'POST', '/v1/redteam-runs', { key: org.admin, raw: withScope(n) });
      expectProblem(r, 400, 'request.number_out_of_range');
      expect(r.body.errors, n).toEqual([{ path: 'scope_redacted.limit', message: expect.any(String) }]);
    }
    expect(await runs()).toBe(before);
    // The exact integer range, and fractions rounded to the nearest double, are kept.
    for (const [n, kept] of [
      ['9007199254740991', 9007199254740991],
      ['-0.1', -0.1],
      ['1e30', 1e30],
    ] as const) {
      const ok = await call(app, 'POST', '/v1/redteam-runs', { key: org.admin, raw: withScope(n) });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.scope_redacted).toEqual({ env: 'prod', limit: kept });
    }
    // The same rule everywhere in a body, schema-typed numbers included.
    const created = await call(app, 'POST', '/v1/redteam-runs', { key: org.admin, json: run });
    const tokens = JSON.stringify(labeledEvents(created.body.run_id, { prompt: 0 })).replace(
      '"prompt":0',
      '"prompt":1e-400',
    );
    const r = await call(app, 'POST', '/v1/labeled-events', { key: org.admin, raw: tokens });
    expectProblem(r, 400, 'request.number_out_of_range');
    expect(r.body.errors[0].path).toBe('events.0.source_data.tokens_used.prompt');
  });

  it("a scan's content is text being scanned: its numbers are read as parsed, and a scan proceeds", async () => {
    const raw = JSON.stringify({
      kind: 'toolset',
      surface: 'mcp_tool_description',
      content: {
        type: 'toolset',
        tools: [{ server: 'srv', name: 'count', input_schema: { type: 'integer', maximum: 0 } }],
      },
      options: { tier: 'fast' },
    }).replace('"maximum":0', '"maximum":18446744073709551615');
    expect((await call(app, 'POST', '/v1/scans', { key: org.admin, raw })).status).toBe(201);
    // Outside the content the rule holds.
    const options = raw.replace('"tier":"fast"', '"tier":"fast","policy_id":1e400');
    const r = await call(app, 'POST', '/v1/scans', { key: org.admin, raw: options });
    expectProblem(r, 400, 'request.number_out_of_range');
    expect(r.body.errors[0].path).toBe('options.policy_id');
  });
});

describe('query parameters a route does not take', () => {
  it('are 400 request.validation_failed naming them on every route, not only lists; nothing runs', async () => {
    const scans = await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId]);
    const scan = await call(app, 'POST', '/v1/scans?limit=-5&cursor=zzz', {
      key: org.admin,
      json: { kind: 'content', surface: 'user_message', content: { type: 'text', text: 'hi' } },
    });
    expectProblem(scan, 400, 'request.validation_failed');
    expect(scan.body.errors).toEqual([{ path: 'query', message: expect.stringMatching(/"limit".*"cursor"/) }]);
    expect((await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId])).rows).toEqual(
      scans.rows,
    );

    const hook = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      json: { ...policy, name: 'kept', detector_config: {} },
    });
    expect(hook.status, hook.text).toBe(201);
    for (const [method, path] of [
      ['DELETE', `/v1/policies/${hook.body.id}?force=true`],
      ['GET', `/v1/policies/${hook.body.id}?expand=rules`],
      ['GET', '/v1/me?x'],
      ['GET', '/v1/scans?limit=1&limit=2'],
    ])
      expectProblem(await call(app, method!, path!, { key: org.admin }), 400, 'request.validation_failed');
    expect((await call(app, 'GET', `/v1/policies/${hook.body.id}`, { key: org.admin })).status).toBe(200);
    // The probes and static files read nothing and answer whatever a monitor or a cache-buster appends.
    expect((await call(app, 'GET', '/healthz?check=1')).status).toBe(200);
    expect((await call(app, 'GET', '/openapi.json?v=2')).status).toBe(200);
  });
});
