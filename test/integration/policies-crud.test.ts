// Policies: create, replace, delete and list, with their audit events and Idempotency-Key.
import { describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem } from '../support/harness.ts';
import { app, body, create, org, other, rule, usePoliciesApp } from './policies-fixture.ts';

usePoliciesApp();

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
