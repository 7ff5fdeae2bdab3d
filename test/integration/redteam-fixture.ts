/**
 * What the redteam-*.test.ts files share: an app with two organizations (`org` acts, `other` is the
 * tenant that must see none of it), valid run, finalize and finding bodies to vary, and the calls the
 * tests repeat. The bindings are live: `app`, `org` and `other` are set by the `beforeAll` that
 * `useRedteamApp` registers.
 */
import { afterAll, beforeAll } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { buildOrg, call, startTestApp, type Reply, type TestApp, type TestOrg } from '../support/harness.ts';

export let app: TestApp;
export let org: TestOrg;
export let other: TestOrg;

/** Starts the app and both organizations before this file's tests; closes it after them. */
export function useRedteamApp(): void {
  beforeAll(async () => {
    app = await startTestApp();
    org = await buildOrg(app);
    other = await buildOrg(app);
  });
  afterAll(async () => app?.close());
}

export const STARTED = '2026-11-20T10:00:00.000Z';

export const runBody = (over: Record<string, unknown> = {}) => ({
  scope_hash: 'a'.repeat(64),
  scope_redacted: { target: 'https://app.example.com/[redacted]', classes: ['direct_injection'] },
  upload_enabled: true,
  training_consent: false,
  written_authorization: true,
  attached_authenticated: false,
  started_at: STARTED,
  model_versions: { 'pi-fast': '1.2.0' },
  corpus_hashes: { builtin: 'b'.repeat(64) },
  redteam_version: 'redteam-cli 0.1.0',
  operator_id: 'operator-7',
  ...over,
});

export const finalizeBody = (over: Record<string, unknown> = {}) => ({
  finished_at: '2026-11-20T11:00:00.000Z',
  verdict: 'high',
  verdict_reason: 'three classes had misses',
  ...over,
});

export const finding = (over: Record<string, unknown> = {}) => ({
  attack_class: 'direct_injection',
  severity: 'high',
  title: 'Instruction override slipped through',
  description: 'An "ignore previous instructions" variant was allowed.',
  framework_refs: [{ framework: 'owasp_llm', id: 'LLM01' }],
  representative_event_id: null,
  remediation_class: 'policy_threshold',
  ...over,
});

export const createRun = (b: unknown = runBody(), key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/v1/redteam-runs', { key, json: b, headers });

/** A new running run of `org` (or as `key`); its id. */
export async function newRun(over: Record<string, unknown> = {}, key = org.admin): Promise<string> {
  const r = await createRun(runBody(over), key);
  if (r.status !== 201) throw new Error(`create run: ${r.status} ${r.text}`);
  return r.body.run_id as string;
}

export const finalize = (runId: string, b: unknown = finalizeBody(), key = org.admin) =>
  call(app, 'POST', `/v1/redteam-runs/${runId}:finalize`, { key, json: b });

export const addFindings = (runId: string, findings: unknown[], key = org.admin): Promise<Reply> =>
  call(app, 'POST', `/v1/redteam-runs/${runId}/findings`, { key, json: { findings } });

export const paths = (r: Reply) => ((r.body?.errors ?? []) as { path: string }[]).map((e) => e.path);

/** A labeled event row of `orgId` (inserted directly: the labeled-events routes are another feature's). */
export async function insertLabeledEvent(orgId: string): Promise<string> {
  const id = newId('labeledEvent');
  await app.db.query(
    `INSERT INTO labeled_events (id, org_id, source, observed_at, training_consent, redaction_version, created_at)
     VALUES ($1, $2, 'redteam', now(), false, 'redactor-v1.0.0', now())`,
    [id, orgId],
  );
  return id;
}

/** Management audit rows about `runId`, oldest first. */
export async function auditOf(runId: string, orgId = org.orgId): Promise<{ change_summary: string }[]> {
  const { rows } = await app.db.query<{ change_summary: string; resource_type: string }>(
    `SELECT change_summary, resource_type FROM audit_events
      WHERE org_id = $1 AND kind = 'management' AND resource_id = $2 ORDER BY id`,
    [orgId, runId],
  );
  return rows;
}
