/**
 * GET / PUT /v1/org/redaction-policy: the documented default, validation of every field, replace as a
 * new version (older rows kept, created_at carried), the unchanged replace, scopes, tenancy, the
 * management audit row and Idempotency-Key replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../lib/scopes.ts';
import { REDACTION_LABELS } from '../../services/redaction/policy.ts';
import {
  buildApiKey,
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

const PATH = '/v1/org/redaction-policy';

let app: TestApp;
let org: TestOrg;

beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

const body = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  field_rules: { EMAIL_ADDRESS: 'hash', PERSON: 'pass_through' },
  default_obfuscation: 'redact',
  override_allowed_for_reviewers: true,
  redaction_version: 'redactor-v1.2.0',
  ...over,
});

const put = (json: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'PUT', PATH, { key, json, headers });

const rowsOf = async (orgId: string) =>
  (await app.db.query<{ id: string }>('SELECT id FROM redaction_policies WHERE org_id = $1 ORDER BY id', [orgId])).rows;

const DEFAULT = {
  policy_id: null,
  field_rules: {},
  default_obfuscation: 'redact',
  override_allowed_for_reviewers: false,
  redaction_version: 'redactor-v1.0.0',
  created_at: null,
  updated_at: null,
};

/** The issues of a 400 request.validation_failed, as `path: message` lines' paths. */
function issuePaths(r: Awaited<ReturnType<typeof put>>): string[] {
  expectProblem(r, 400, 'request.validation_failed');
  return (r.body.errors as { path: string }[]).map((e) => e.path);
}

describe('GET /v1/org/redaction-policy', () => {
  it('answers the documented default when no policy was ever set', async () => {
    const fresh = await buildOrg(app);
    const r = await call(app, 'GET', PATH, { key: fresh.admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(DEFAULT);
  });

  it('is unscoped: any single-scope key of the organization reads it; no credential is 401', async () => {
    for (const scope of SCOPES) {
      const { secret } = await buildApiKey(app, org.orgId, { scopes: [scope] });
      const r = await call(app, 'GET', PATH, { key: secret });
      expect(r.status, scope).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(Object.keys(DEFAULT).sort());
    }
    expectProblem(await call(app, 'GET', PATH), 401, 'auth.unauthenticated');
  });
});

describe('PUT /v1/org/redaction-policy: validation', () => {
  it.each(['field_rules', 'default_obfuscation', 'override_allowed_for_reviewers', 'redaction_version'])(
    'requires %s',
    async (field) => {
      const b = body();
      delete b[field];
      expect(issuePaths(await put(b))).toEqual([field]);
    },
  );

  it('rejects values outside the obfuscation enum, in the default and in a rule', async () => {
    expect(issuePaths(await put(body({ default_obfuscation: 'mask' })))).toEqual(['default_obfuscation']);
    expect(issuePaths(await put(body({ field_rules: { US_SSN: 'encrypt' } })))).toEqual(['field_rules.US_SSN']);
  });

  it.each(['redactor-1.0.0', 'redactor-v1.0', 'redactor-v1.0.0-beta', 'v1.0.0', 'Redactor-v1.0.0', ''])(
    'rejects redaction_version %j',
    async (v) => {
      expect(issuePaths(await put(body({ redaction_version: v })))).toEqual(['redaction_version']);
    },
  );

  it('rejects other types: a non-boolean override, field_rules not an object, an unknown field', async () => {
    expect(issuePaths(await put(body({ override_allowed_for_reviewers: 'yes' })))).toEqual([
      'override_allowed_for_reviewers',
    ]);
    expect(issuePaths(await put(body({ field_rules: ['EMAIL_ADDRESS'] })))).toEqual(['field_rules']);
    expect(issuePaths(await put(body({ extra: 1 })))).toEqual(['']);
  });

  it('accepts field names as keys next to PII labels, and shows them back', async () => {
    const rules = {
      input: 'hash',
      output: 'pass_through',
      comparator: 'redact',
      verdict_reason: 'redact',
      scope_redacted: 'hash',
      title: 'pass_through',
      description: 'redact',
      US_SSN: 'hash',
    };
    const r = await put(body({ field_rules: rules }));
    expect(r.status, r.text).toBe(200);
    expect(r.body.field_rules).toEqual(rules);
    expect(issuePaths(await put(body({ field_rules: { Input: 'hash', source_data: 'redact' } }))).sort()).toEqual([
      'field_rules.Input',
      'field_rules.source_data',
    ]);
  });

  it('rejects an unknown field_rules key, naming it', async () => {
    const r = await put(body({ field_rules: { EMAIL_ADDRESS: 'hash', email: 'redact', SALARY: 'hash' } }));
    expect(issuePaths(r).sort()).toEqual(['field_rules.SALARY', 'field_rules.email']);
  });

  it('accepts every PII label the detector reports', async () => {
    const rules = Object.fromEntries([...REDACTION_LABELS].map((l) => [l, 'hash']));
    const r = await put(body({ field_rules: rules }));
    expect(r.status).toBe(200);
    expect(r.body.field_rules).toEqual(rules);
  });

  it('holds at most 64 keys: 64 are within the bound (only the unknown ones are named), 65 are not', async () => {
    const known = [...REDACTION_LABELS];
    const keys = (n: number) => [...known, ...Array.from({ length: n - known.length }, (_, i) => `X_${i}`)];
    const at = issuePaths(await put(body({ field_rules: Object.fromEntries(keys(64).map((k) => [k, 'redact'])) })));
    expect(at).not.toContain('field_rules');
    expect(at).toHaveLength(64 - known.length);
    const over = issuePaths(await put(body({ field_rules: Object.fromEntries(keys(65).map((k) => [k, 'redact'])) })));
    expect(over).toContain('field_rules');
  });
});

describe('PUT /v1/org/redaction-policy: versions', () => {
  it('replaces by inserting a new row: GET shows the newest, older rows stay, created_at is the first one', async () => {
    const o = await buildOrg(app);
    const first = await put(body(), o.admin);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ...body(), policy_id: expect.stringMatching(/^rdp_[0-9A-HJKMNP-TV-Z]{26}$/) });
    expect(first.body.created_at).toBe(first.body.updated_at);
    const second = await put(body({ default_obfuscation: 'hash', redaction_version: 'redactor-v1.3.0' }), o.admin);
    expect(second.status).toBe(200);
    expect(second.body.policy_id).not.toBe(first.body.policy_id);
    expect(second.body.created_at).toBe(first.body.created_at);
    expect(Date.parse(second.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.body.updated_at));
    const got = await call(app, 'GET', PATH, { key: o.admin });
    expect(got.body).toEqual(second.body);
    expect((await rowsOf(o.orgId)).map((r) => r.id)).toEqual([first.body.policy_id, second.body.policy_id]);
  });

  it('answers a body equal to the policy in force with that policy: no new row, no audit row', async () => {
    const o = await buildOrg(app);
    const first = await put(body(), o.admin);
    // the same rules in another key order are the same policy
    const same = await put(body({ field_rules: { PERSON: 'pass_through', EMAIL_ADDRESS: 'hash' } }), o.admin);
    expect(same.status).toBe(200);
    expect(same.body).toEqual(first.body);
    expect(await rowsOf(o.orgId)).toHaveLength(1);
    const audit = await call(app, 'GET', '/v1/audit-events?resource_type=redaction_policy', { key: o.admin });
    expect(audit.body.data).toHaveLength(1);
  });

  it('writes a management audit row per replace, naming the new version', async () => {
    const o = await buildOrg(app);
    const r = await put(body(), o.admin);
    const audit = await call(app, 'GET', '/v1/audit-events?resource_type=redaction_policy', { key: o.admin });
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      kind: 'management',
      resource_type: 'redaction_policy',
      resource_id: r.body.policy_id,
      actor_id: o.adminId,
    });
    expect(audit.body.data[0].change_summary).toContain('redactor-v1.2.0');
  });

  it('replays a PUT sent again with the same Idempotency-Key (one new row)', async () => {
    const o = await buildOrg(app);
    const headers = { 'idempotency-key': `rdp-${Date.now()}` };
    const b = body({ redaction_version: 'redactor-v2.0.0' });
    const first = await put(b, o.admin, headers);
    const again = await put(b, o.admin, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await rowsOf(o.orgId)).toHaveLength(1);
    expectProblem(
      await put(body({ redaction_version: 'redactor-v2.0.1' }), o.admin, headers),
      409,
      'idempotency.key_reused',
    );
  });
});

describe('PUT /v1/org/redaction-policy: access', () => {
  it('needs the admin scope: a labeled_events:write key is 403 and nothing is written', async () => {
    const o = await buildOrg(app);
    const { secret } = await buildApiKey(app, o.orgId, { scopes: ['labeled_events:write'] });
    const r = await put(body(), secret);
    expectProblem(r, 403, 'auth.insufficient_scope');
    expect(r.body.required_scope).toBe('admin');
    expect(await rowsOf(o.orgId)).toHaveLength(0);
    expectProblem(await call(app, 'PUT', PATH, { json: body() }), 401, 'auth.unauthenticated');
  });

  it('keeps each organization its own policy: another organization neither sees nor changes it', async () => {
    const a = await buildOrg(app);
    const b = await buildOrg(app);
    const setA = await put(body(), a.admin);
    expect((await call(app, 'GET', PATH, { key: b.admin })).body).toEqual(DEFAULT);
    const setB = await put(body({ default_obfuscation: 'pass_through', field_rules: {} }), b.admin);
    expect(setB.body.policy_id).not.toBe(setA.body.policy_id);
    expect((await call(app, 'GET', PATH, { key: a.admin })).body).toEqual(setA.body);
    expect((await call(app, 'GET', PATH, { key: b.admin })).body).toEqual(setB.body);
    expect(await rowsOf(a.orgId)).toHaveLength(1);
    const auditB = await call(app, 'GET', '/v1/audit-events?resource_type=redaction_policy', { key: b.admin });
    expect(auditB.body.data.map((e: { resource_id: string }) => e.resource_id)).toEqual([setB.body.policy_id]);
  });

  it('answers 405 with Allow for other methods', async () => {
    const r = await call(app, 'POST', PATH, { key: org.admin, json: body() });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('PUT');
  });
});
