import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import { app, auditOf, createRun, org, paths, runBody, STARTED, useRedteamApp } from './redteam-fixture.ts';

useRedteamApp();

describe('POST /v1/redteam-runs', () => {
  it('creates a running run with every field of the spec, a Location and an audit row', async () => {
    const r = await createRun();
    expect(r.status).toBe(201);
    expect(r.body.run_id).toMatch(/^rtr_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.headers.get('location')).toBe(`/v1/redteam-runs/${r.body.run_id}`);
    const b = runBody();
    expect(r.body).toEqual({
      run_id: r.body.run_id,
      state: 'running',
      scope_hash: b.scope_hash,
      scope_redacted: b.scope_redacted,
      upload_enabled: true,
      training_consent: false,
      written_authorization: true,
      attached_authenticated: false,
      started_at: STARTED,
      finished_at: null,
      verdict: null,
      verdict_reason: null,
      model_versions: b.model_versions,
      corpus_hashes: b.corpus_hashes,
      redteam_version: b.redteam_version,
      operator_id: b.operator_id,
      created_at: expect.stringMatching(/Z$/),
    });
    const audit = await auditOf(r.body.run_id);
    expect(audit).toEqual([expect.objectContaining({ resource_type: 'redteam_run' })]);
    expect(audit[0]!.change_summary).toMatch(/created/);
  });

  it('takes scope_redacted and operator_id as optional (null when absent)', async () => {
    const { scope_redacted: _s, operator_id: _o, ...rest } = runBody();
    const r = await createRun(rest);
    expect(r.status).toBe(201);
    expect(r.body.scope_redacted).toBeNull();
    expect(r.body.operator_id).toBeNull();
    const n = await createRun(runBody({ scope_redacted: null, operator_id: null }));
    expect(n.status).toBe(201);
  });

  it('refuses written_authorization: false with its own code, writing nothing', async () => {
    const r = await createRun(runBody({ written_authorization: false }));
    expectProblem(r, 400, 'redteam.written_authorization_required');
    expect(paths(r)).toEqual(['written_authorization']);
    const { rows } = await app.db.query(
      `SELECT count(*)::int AS n FROM redteam_runs WHERE org_id = $1 AND written_authorization = false`,
      [org.orgId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('replays a create sent again with the same Idempotency-Key (one run)', async () => {
    const headers = { 'idempotency-key': `rt-${Date.now()}` };
    const a = await createRun(runBody(), org.admin, headers);
    const b = await createRun(runBody(), org.admin, headers);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    const c = await createRun(runBody({ redteam_version: 'other' }), org.admin, headers);
    expectProblem(c, 409, 'idempotency.key_reused');
  });

  it('requires redteam:write', async () => {
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['redteam:read'] });
    expectProblem(await createRun(runBody(), secret), 403, 'auth.insufficient_scope');
    const w = await buildApiKey(app, org.orgId, { scopes: ['redteam:write'] });
    expect((await createRun(runBody(), w.secret)).status).toBe(201);
  });
});

describe('create validation', () => {
  const REQUIRED = [
    'scope_hash',
    'upload_enabled',
    'training_consent',
    'written_authorization',
    'attached_authenticated',
    'started_at',
    'model_versions',
    'corpus_hashes',
    'redteam_version',
  ];

  it.each(REQUIRED)('requires %s', async (field) => {
    const b: Record<string, unknown> = runBody();
    delete b[field];
    const r = await createRun(b);
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toEqual([field]);
  });

  const bad: [string, unknown, string][] = [
    ['scope_hash', 'A'.repeat(64), 'scope_hash'],
    ['scope_hash', 'a'.repeat(63), 'scope_hash'],
    ['scope_hash', 'a'.repeat(65), 'scope_hash'],
    ['scope_hash', 'g'.repeat(64), 'scope_hash'],
    ['scope_redacted', [1, 2], 'scope_redacted'],
    ['scope_redacted', 'text', 'scope_redacted'],
    ['scope_redacted', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])), 'scope_redacted'],
    ['scope_redacted', { big: 'x'.repeat(16_384) }, 'scope_redacted'],
    ['upload_enabled', 'true', 'upload_enabled'],
    ['training_consent', 1, 'training_consent'],
    ['written_authorization', null, 'written_authorization'],
    ['attached_authenticated', 'no', 'attached_authenticated'],
    ['started_at', '2026-11-20 10:00', 'started_at'],
    ['started_at', '2026-11-20T10:00:00', 'started_at'],
    ['model_versions', { m: 1 }, 'model_versions.m'],
    ['model_versions', { m: '' }, 'model_versions.m'],
    ['model_versions', { m: 'x'.repeat(256) }, 'model_versions.m'],
    ['model_versions', ['1.0'], 'model_versions'],
    ['model_versions', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`m${i}`, '1'])), 'model_versions'],
    ['corpus_hashes', { ['k'.repeat(129)]: 'h' }, `corpus_hashes.${'k'.repeat(129)}`],
    ['corpus_hashes', null, 'corpus_hashes'],
    ['redteam_version', '', 'redteam_version'],
    ['redteam_version', 'v'.repeat(65), 'redteam_version'],
    ['operator_id', '', 'operator_id'],
    ['operator_id', 'o'.repeat(256), 'operator_id'],
    ['unknown_field', 1, ''],
  ];
  it.each(bad)('refuses %s (case %#)', async (field, value, path) => {
    const r = await createRun(runBody({ [field]: value }));
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)[0]).toBe(path);
  });

  it('accepts every bound exactly at its limit', async () => {
    // 16 KiB serialized: {"big":"…"} is 10 bytes around the value.
    const r = await createRun(
      runBody({
        scope_redacted: { big: 'x'.repeat(16_384 - 10) },
        model_versions: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`m${i}`, 'v'.repeat(255)])),
        corpus_hashes: { ['k'.repeat(128)]: 'h' },
        redteam_version: 'v'.repeat(64),
        operator_id: 'o'.repeat(255),
      }),
    );
    expect(r.status).toBe(201);
    const keys = await createRun(
      runBody({ scope_redacted: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i])) }),
    );
    expect(keys.status).toBe(201);
  });

  it('lists every issue, not only the first', async () => {
    const r = await createRun(runBody({ scope_hash: 'x', redteam_version: '', upload_enabled: 'yes' }));
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r).sort()).toEqual(['redteam_version', 'scope_hash', 'upload_enabled']);
  });
});

describe('scope_redacted nesting', () => {
  const nest = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < levels; i++) v = { a: v };
    return v;
  };
  it('takes 16 levels and refuses 17 or a hostile 10,000 (400, never a 500)', async () => {
    expect((await createRun(runBody({ scope_redacted: nest(16) }))).status).toBe(201);
    const deeper = await createRun(runBody({ scope_redacted: nest(17) }));
    expectProblem(deeper, 400, 'request.validation_failed');
    expect(paths(deeper)).toEqual(['scope_redacted']);
    // Sent as raw text: the test's own JSON.stringify would overflow on these.
    const raw = (deep: string) =>
      call(app, 'POST', '/v1/redteam-runs', {
        key: org.admin,
        raw: JSON.stringify(runBody({ scope_redacted: '@' })).replace('"@"', deep),
      });
    const arrays = `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expectProblem(await raw(arrays), 400, 'request.validation_failed');
    const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    expectProblem(await raw(objects), 400, 'request.validation_failed');
  });
});
