/**
 * The legacy analysis API's data (issue 22, docs/legacy.md): analysis sessions, numbered 1, 2, 3 … per
 * organization from `organizations.legacy_analysis_seq` (never reused), and the monthly request count
 * of each organization (`legacy_usage`), taken by one atomic statement so concurrent requests never
 * overshoot the limit.
 */
import type { Queryable } from './db.ts';

export interface LegacyAnalysisRow {
  org_id: string;
  analysis_id: number;
  name: string;
  description: string | null;
  created_by: string | null;
  created_at: Date;
}

const COLUMNS = 'org_id, analysis_id, name, description, created_by, created_at';

/**
 * The organization's next analysis id: bumps its counter, which row-locks the organization until the
 * transaction ends (two concurrent creates are numbered one after the other). Null for an unknown org.
 */
export async function nextAnalysisId(tx: Queryable, orgId: string): Promise<number | null> {
  const { rows } = await tx.query<{ seq: number }>(
    `UPDATE organizations SET legacy_analysis_seq = legacy_analysis_seq + 1 WHERE id = $1
     RETURNING legacy_analysis_seq AS seq`,
    [orgId],
  );
  return rows[0]?.seq ?? null;
}

export async function insertAnalysis(q: Queryable, a: LegacyAnalysisRow): Promise<LegacyAnalysisRow> {
  const { rows } = await q.query<LegacyAnalysisRow>(
    `INSERT INTO legacy_analyses (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [a.org_id, a.analysis_id, a.name, a.description, a.created_by, a.created_at],
  );
  return rows[0]!;
}

/** The session, or null when the id is unknown in this organization. */
export async function getAnalysis(q: Queryable, orgId: string, analysisId: number): Promise<LegacyAnalysisRow | null> {
  const { rows } = await q.query<LegacyAnalysisRow>(
    `SELECT ${COLUMNS} FROM legacy_analyses WHERE org_id = $1 AND analysis_id = $2`,
    [orgId, analysisId],
  );
  return rows[0] ?? null;
}

/** Whether the session exists: the legacy endpoint's check on every request (a primary-key probe). */
export async function analysisExists(q: Queryable, orgId: string, analysisId: number): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM legacy_analyses WHERE org_id = $1 AND analysis_id = $2', [
    orgId,
    analysisId,
  ]);
  return rows.length > 0;
}

/** One page of sessions, newest first (ids grow with creation), before `beforeId` when given. */
export async function listAnalyses(
  q: Queryable,
  orgId: string,
  beforeId: number | undefined,
  limit: number,
): Promise<LegacyAnalysisRow[]> {
  const { rows } = await q.query<LegacyAnalysisRow>(
    `SELECT ${COLUMNS} FROM legacy_analyses
      WHERE org_id = $1 AND ($2::integer IS NULL OR analysis_id < $2)
      ORDER BY analysis_id DESC LIMIT $3`,
    [orgId, beforeId ?? null, limit],
  );
  return rows;
}

/** The deleted session, or null when the id is unknown in this organization. */
export async function deleteAnalysis(
  q: Queryable,
  orgId: string,
  analysisId: number,
): Promise<LegacyAnalysisRow | null> {
  const { rows } = await q.query<LegacyAnalysisRow>(
    `DELETE FROM legacy_analyses WHERE org_id = $1 AND analysis_id = $2 RETURNING ${COLUMNS}`,
    [orgId, analysisId],
  );
  return rows[0] ?? null;
}

/** One take of the monthly quota: the limit in force and the count after it (`taken` null: refused). */
export interface QuotaTake {
  limit: number;
  /** The month's count after this take; null when it was refused (the limit was reached). */
  taken: number | null;
  /** The month's count as this statement's snapshot saw it before the take (0 when none). */
  before: number;
}

/**
 * Counts one request of `month` (`YYYY-MM-01`) against the organization's limit (its override, else
 * `defaultLimit`) in one statement: the insert or the conditional increment happens only while the
 * count is below the limit, and concurrent takes serialize on the row, so at most `limit` are counted.
 */
export async function takeRequest(
  q: Queryable,
  orgId: string,
  month: string,
  defaultLimit: number,
): Promise<QuotaTake> {
  const { rows } = await q.query<{ limit: number | null; taken: number | null; before: number | null }>(
    `WITH lim AS (
       SELECT COALESCE(legacy_monthly_quota, $3::integer) AS n FROM organizations WHERE id = $1
     ), took AS (
       INSERT INTO legacy_usage AS u (org_id, month, requests)
       SELECT $1, $2::date, 1 FROM lim WHERE lim.n > 0
       ON CONFLICT (org_id, month) DO UPDATE SET requests = u.requests + 1
         WHERE u.requests < (SELECT n FROM lim)
       RETURNING u.requests
     )
     SELECT (SELECT n FROM lim) AS limit, (SELECT requests FROM took) AS taken,
            (SELECT requests FROM legacy_usage WHERE org_id = $1 AND month = $2::date) AS before`,
    [orgId, month, defaultLimit],
  );
  const r = rows[0]!;
  return { limit: r.limit ?? defaultLimit, taken: r.taken, before: r.before ?? 0 };
}

/** The organization's limit (its override, else `defaultLimit`) and the month's count (0 when none). */
export async function readUsage(
  q: Queryable,
  orgId: string,
  month: string,
  defaultLimit: number,
): Promise<{ limit: number; used: number }> {
  const { rows } = await q.query<{ limit: number | null; used: number | null }>(
    `SELECT (SELECT COALESCE(legacy_monthly_quota, $3::integer) FROM organizations WHERE id = $1) AS limit,
            (SELECT requests FROM legacy_usage WHERE org_id = $1 AND month = $2::date) AS used`,
    [orgId, month, defaultLimit],
  );
  return { limit: rows[0]?.limit ?? defaultLimit, used: rows[0]?.used ?? 0 };
}

/** Sets (a number) or clears (null: back to the default) the organization's override; false for an unknown org. */
export async function setQuotaOverride(q: Queryable, orgId: string, quota: number | null): Promise<boolean> {
  const { rowCount } = await q.query('UPDATE organizations SET legacy_monthly_quota = $2 WHERE id = $1', [
    orgId,
    quota,
  ]);
  return (rowCount ?? 0) > 0;
}
