import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { insertInvite } from '../../store/invites.ts';
import { claimOrgCreation, completeOrgCreation } from '../../store/org-creations.ts';
import { provisionUser } from '../../store/users.ts';
import { createAnalysis } from '../../services/legacy-analyses.ts';
import { takeLegacyRequest } from '../../services/legacy-quota.ts';
import { NON_TENANT_TABLES, orgScopedTables, purgeOrgData } from '../../store/org-purge.ts';
import { call, type TestOrg } from '../support/harness.ts';
import { rollUp } from './analytics-fixture.ts';
import { app, createHook, org, other, scan, SSN_TEXT, useWebhooksApp } from './webhooks-fixture.ts';

useWebhooksApp();

/** Rows of `orgId` per org-scoped table. */
async function counts(orgId: string): Promise<Record<string, number>> {
  const { tables } = await orgScopedTables(app.db);
  const out: Record<string, number> = {};
  for (const t of tables) {
    const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}" WHERE org_id = $1`, [
      orgId,
    ]);
    out[t] = rows[0]!.n;
  }
  return out;
}

/** Rows in every org-scoped table through the API: keys (one rotated), idempotency records, a policy, a webhook, scans, deliveries, audit events, analytics buckets. */
async function populate(o: TestOrg): Promise<void> {
  const key = await call(app, 'POST', '/v1/api-keys', {
    key: o.admin,
    json: { name: 'purge me', scopes: ['scans:write'] },
    headers: { 'Idempotency-Key': `purge-${o.orgId}` },
  });
  expect(key.status).toBe(201);
  expect((await call(app, 'POST', `/v1/api-keys/${key.body.id}:rotate`, { key: o.admin })).status).toBe(201);
  expect((await createHook(o, {})).status).toBe(201);
  for (let i = 0; i < 3; i++) expect((await scan(o, SSN_TEXT)).status).toBe(201);
  // the scans' analytics bucket (the job spans organizations: this file's database is its own)
  await rollUp(app);
  await identityRows(o.orgId);
}

/** A member, an invite and an organization-create record: rows the SSO flows write (identity-*.test.ts drive them). */
async function identityRows(orgId: string): Promise<void> {
  const now = new Date();
  const user = await provisionUser(app.db, {
    id: newId('user'),
    org_id: orgId,
    external_subject: `subject-${orgId}`,
    email: null,
    role: 'owner',
    created_at: now,
  });
  await insertInvite(
    app.db,
    {
      id: newId('invite'),
      org_id: orgId,
      email: 'a@example.com',
      role: 'member',
      created_at: now,
      expires_at: now,
      created_by: user.id,
    },
    randomBytes(32),
  );
  const creation = { subject: `subject-${orgId}`, key: 'k', request_hash: randomBytes(32) };
  await claimOrgCreation(app.db, { ...creation, locked_until: now, created_at: now, expires_at: now });
  await completeOrgCreation(app.db, creation.subject, creation.key, orgId);
  await issue20Rows(orgId, now);
  // issue 22: an analysis session and the month's legacy request count
  await createAnalysis(
    { db: app.db, clock: { now: () => now } },
    orgId,
    { name: 'purge me' },
    { id: 'test', requestId: null },
  );
  await takeLegacyRequest(app.db, orgId, now, 10);
}

/** A redaction policy, a red-team run with a finding, a labeled event under it and an evidence upload. */
async function issue20Rows(orgId: string, now: Date): Promise<void> {
  const run = newId('redteamRun');
  const q = (sql: string, params: unknown[]) => app.db.query(sql, params);
  await q(`INSERT INTO redaction_policies VALUES ($1, $2, '{}', 'redact', false, 'redactor-v1.0.0', $3, $3)`, [
    newId('redactionPolicy'),
    orgId,
    now,
  ]);
  await q(
    `INSERT INTO redteam_runs (id, org_id, state, scope_hash, upload_enabled, training_consent, written_authorization,
       attached_authenticated, started_at, model_versions, corpus_hashes, redteam_version, created_at)
     VALUES ($1, $2, 'running', $3, false, false, true, false, $4, '{}', '{}', 'v1', $4)`,
    [run, orgId, 'a'.repeat(64), now],
  );
  await q(
    `INSERT INTO redteam_findings (id, org_id, run_id, attack_class, severity, title, description, framework_refs,
       remediation_class, created_at) VALUES ($1, $2, $3, 'x', 'low', 't', 'd', '[]', 'r', $4)`,
    [newId('redteamFinding'), orgId, run, now],
  );
  await q(
    `INSERT INTO labeled_events (id, org_id, source, observed_at, run_id, training_consent, redaction_version, created_at)
     VALUES ($1, $2, 'redteam', $3, $4, false, 'redactor-v1.0.0', $3)`,
    [newId('labeledEvent'), orgId, now, run],
  );
  await q(
    `INSERT INTO evidence_uploads (storage_key, org_id, kind, sha256, size_bytes, backend, created_at, expires_at)
     VALUES ($1, $2, 'log', $3, 1, 'local', $4, $4)`,
    [`purge-${newId('labeledEvent')}`, orgId, 'b'.repeat(64), now],
  );
}

describe('organization purge (issue 19: organization deletion deletes every org-scoped row)', () => {
  it('every table either carries org_id or is a known non-tenant table', async () => {
    const { rows } = await app.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const { tables } = await orgScopedTables(app.db);
    const unclassified = rows
      .map((r) => r.table_name)
      .filter((t) => !tables.includes(t) && !NON_TENANT_TABLES.includes(t));
    expect(unclassified).toEqual([]);
  });

  it('deletes every row of the organization in every org-scoped table, in batches, and nothing of another', async () => {
    await populate(org);
    await populate(other);
    const before = await counts(org.orgId);
    // the fixture reaches every org-scoped table: a new table needs rows here, or this test cannot prove it is purged
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const otherBefore = await counts(other.orgId);

    const deleted = await purgeOrgData(app.db, org.orgId, 2);
    expect(deleted.organizations).toBe(1);
    for (const [t, n] of Object.entries(before)) expect(deleted[t], t).toBe(n);
    expect(Object.values(await counts(org.orgId)).every((n) => n === 0)).toBe(true);
    const { rowCount } = await app.db.query('SELECT 1 FROM organizations WHERE id = $1', [org.orgId]);
    expect(rowCount).toBe(0);
    expect(await counts(other.orgId)).toEqual(otherBefore);
    // the other organization works as before (the deleted one's keys are gone; dropping them from the
    // authenticator's cache is the deletion service's to publish, as revocations are)
    expect((await call(app, 'GET', '/v1/me', { key: other.admin })).status).toBe(200);
  });

  it('a second purge of the same organization deletes nothing and does not fail', async () => {
    const deleted = await purgeOrgData(app.db, org.orgId);
    expect(Object.values(deleted).every((n) => n === 0)).toBe(true);
  });
});
