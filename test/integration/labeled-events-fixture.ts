/**
 * What the labeled-events-*.test.ts files share: an app whose log lines are kept (the raw-text
 * search reads them), an organization, an append call, a minimal valid event, and direct inserts of
 * the rows other features own (red-team runs, evidence uploads) that an append references.
 * The bindings are live: `app` and `org` are set by the `beforeAll` that `useLabeledEventsApp` registers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

export let app: TestApp;
export let org: TestOrg;
/** Every log line the app wrote (at LOG_LEVEL debug). */
export const logLines: string[] = [];

/** Starts the app and the organization before this file's tests; closes it after them. */
export function useLabeledEventsApp(): void {
  beforeAll(async () => {
    app = await startTestApp({ logLines, env: { LOG_LEVEL: 'debug' } });
    org = await buildOrg(app);
  });
  afterAll(async () => app?.close());
}

export const PATH = '/v1/labeled-events';

/** POST /v1/labeled-events as `key` (the organization's admin by default). */
export const append = (body: unknown, key = org.admin, headers: Record<string, string> = {}) =>
  call(app, 'POST', PATH, { key, json: body, headers });

/** A minimal valid event (source `feedback`), with `over` merged in. */
export const ev = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  source: 'feedback',
  observed_at: '2026-03-01T10:00:00.000Z',
  input: 'what is the weather today',
  output: 'sunny',
  ...over,
});

/** A full `redteam` event under `runId`. */
export const redteamEv = (runId: string, over: Record<string, unknown> = {}): Record<string, unknown> =>
  ev({
    source: 'redteam',
    source_data: {
      run_id: runId,
      iteration_index: 0,
      attack_class: 'prompt_injection',
      attack_subclass: 'instruction_override',
      corpus_entry_id: 'corpus-1',
      tokens_used: { prompt: 10, completion: 20 },
    },
    ...over,
  });

/** A red-team run row of `orgId`, inserted directly (the red-team feature's table). */
export async function insertRun(orgId: string, trainingConsent: boolean): Promise<string> {
  const id = newId('redteamRun');
  const now = new Date();
  await app.db.query(
    `INSERT INTO redteam_runs (id, org_id, state, scope_hash, upload_enabled, training_consent, written_authorization,
       attached_authenticated, started_at, model_versions, corpus_hashes, redteam_version, created_at)
     VALUES ($1, $2, 'running', $3, true, $4, true, false, $5, '{}', '{}', 'redteam-v1.0.0', $5)`,
    [id, orgId, randomBytes(32).toString('hex'), trainingConsent, now],
  );
  return id;
}

/** An evidence upload row of `orgId`, verified or not, inserted directly (the evidence feature's table). */
export async function insertEvidence(orgId: string, verified: boolean): Promise<string> {
  const key = `ev/${orgId}/${randomBytes(8).toString('hex')}`;
  const now = new Date();
  await app.db.query(
    `INSERT INTO evidence_uploads (storage_key, org_id, kind, sha256, size_bytes, backend, created_at, expires_at, verified_at)
     VALUES ($1, $2, 'screenshot', $3, 10, 'local', $4, $5, $6)`,
    [key, orgId, randomBytes(32).toString('hex'), now, new Date(now.getTime() + 900_000), verified ? now : null],
  );
  return key;
}

/** The `errors` paths of a problem. */
export const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path);
