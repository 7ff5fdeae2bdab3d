/**
 * Red-team runs and their findings (issue 20). Every function takes the organization first and
 * filters by it; a run's state changes and its findings' inserts run under the run row's lock
 * (`lockRun`), so a finalize and an add-findings of one run never interleave.
 */
import type { Queryable } from './db.ts';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export interface RedteamRunRow {
  id: string;
  org_id: string;
  state: 'running' | 'finished';
  scope_hash: string;
  scope_redacted: Record<string, unknown> | null;
  upload_enabled: boolean;
  training_consent: boolean;
  written_authorization: boolean;
  attached_authenticated: boolean;
  started_at: Date;
  finished_at: Date | null;
  verdict: Severity | null;
  verdict_reason: string | null;
  model_versions: Record<string, string>;
  corpus_hashes: Record<string, string>;
  redteam_version: string;
  operator_id: string | null;
  created_by: string | null;
  created_at: Date;
}

export interface FrameworkRef {
  framework: string;
  id: string;
}

export interface RedteamFindingRow {
  id: string;
  org_id: string;
  run_id: string;
  attack_class: string;
  severity: Severity;
  title: string;
  description: string;
  framework_refs: FrameworkRef[];
  representative_event_id: string | null;
  remediation_class: string;
  created_at: Date;
}

const RUN_COLUMNS = `id, org_id, state, scope_hash, scope_redacted, upload_enabled, training_consent,
  written_authorization, attached_authenticated, started_at, finished_at, verdict, verdict_reason,
  model_versions, corpus_hashes, redteam_version, operator_id, created_by, created_at`;

const FINDING_COLUMNS = `id, org_id, run_id, attack_class, severity, title, description, framework_refs,
  representative_event_id, remediation_class, created_at`;

export type NewRedteamRun = Omit<RedteamRunRow, 'state' | 'finished_at' | 'verdict' | 'verdict_reason'>;

export async function insertRun(q: Queryable, r: NewRedteamRun): Promise<RedteamRunRow> {
  const { rows } = await q.query<RedteamRunRow>(
    `INSERT INTO redteam_runs (id, org_id, state, scope_hash, scope_redacted, upload_enabled, training_consent,
       written_authorization, attached_authenticated, started_at, model_versions, corpus_hashes, redteam_version,
       operator_id, created_by, created_at)
     VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     RETURNING ${RUN_COLUMNS}`,
    [
      r.id,
      r.org_id,
      r.scope_hash,
      r.scope_redacted === null ? null : JSON.stringify(r.scope_redacted),
      r.upload_enabled,
      r.training_consent,
      r.written_authorization,
      r.attached_authenticated,
      r.started_at,
      JSON.stringify(r.model_versions),
      JSON.stringify(r.corpus_hashes),
      r.redteam_version,
      r.operator_id,
      r.created_by,
      r.created_at,
    ],
  );
  return rows[0]!;
}

/** The run, or null when the id is unknown in this organization; row-locked until the transaction ends when `forUpdate`. */
export async function getRun(
  q: Queryable,
  orgId: string,
  id: string,
  forUpdate = false,
): Promise<RedteamRunRow | null> {
  const { rows } = await q.query<RedteamRunRow>(
    `SELECT ${RUN_COLUMNS} FROM redteam_runs WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** One page of runs, newest first (ids are time-ordered), optionally of one state. */
export async function listRuns(
  q: Queryable,
  orgId: string,
  state: 'running' | 'finished' | undefined,
  beforeId: string | undefined,
  limit: number,
): Promise<RedteamRunRow[]> {
  const { rows } = await q.query<RedteamRunRow>(
    `SELECT ${RUN_COLUMNS} FROM redteam_runs
      WHERE org_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [orgId, state ?? null, beforeId ?? null, limit],
  );
  return rows;
}

export interface RunFinish {
  finished_at: Date;
  verdict: Severity;
  verdict_reason: string | null;
}

/** Marks a running run finished; the caller holds its lock and has checked its state. */
export async function finishRun(q: Queryable, orgId: string, id: string, f: RunFinish): Promise<RedteamRunRow> {
  const { rows } = await q.query<RedteamRunRow>(
    `UPDATE redteam_runs SET state = 'finished', finished_at = $3, verdict = $4, verdict_reason = $5
      WHERE org_id = $1 AND id = $2 AND state = 'running'
      RETURNING ${RUN_COLUMNS}`,
    [orgId, id, f.finished_at, f.verdict, f.verdict_reason],
  );
  return rows[0]!;
}

export type NewRedteamFinding = Omit<RedteamFindingRow, 'org_id' | 'run_id' | 'created_at'>;

/** Inserts a run's findings in one statement (in the order given). */
export async function insertFindings(
  q: Queryable,
  orgId: string,
  runId: string,
  at: Date,
  findings: NewRedteamFinding[],
): Promise<void> {
  await q.query(
    `INSERT INTO redteam_findings (id, org_id, run_id, attack_class, severity, title, description, framework_refs,
       representative_event_id, remediation_class, created_at)
     SELECT f.id, $1, $2, f.attack_class, f.severity, f.title, f.description, f.framework_refs,
            f.representative_event_id, f.remediation_class, $3
       FROM jsonb_to_recordset($4::jsonb) AS f(id text, attack_class text, severity text, title text,
            description text, framework_refs jsonb, representative_event_id text, remediation_class text)`,
    [orgId, runId, at, JSON.stringify(findings)],
  );
}

/** One page of a run's findings, newest first. */
export async function listFindings(
  q: Queryable,
  orgId: string,
  runId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<RedteamFindingRow[]> {
  const { rows } = await q.query<RedteamFindingRow>(
    `SELECT ${FINDING_COLUMNS} FROM redteam_findings
      WHERE org_id = $1 AND run_id = $2 AND ($3::text IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [orgId, runId, beforeId ?? null, limit],
  );
  return rows;
}

export interface RunConsent {
  training_consent: boolean;
  state: string;
}

/** The red-team runs of this organization among `runIds`: their consent and state (a labeled-event append checks its run references). */
export async function runsOfOrg(q: Queryable, orgId: string, runIds: string[]): Promise<Map<string, RunConsent>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await q.query<RunConsent & { id: string }>(
    'SELECT id, training_consent, state FROM redteam_runs WHERE org_id = $1 AND id = ANY($2::text[])',
    [orgId, runIds],
  );
  return new Map(rows.map((r) => [r.id, { training_consent: r.training_consent, state: r.state }]));
}
