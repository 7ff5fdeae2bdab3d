/**
 * Analysis sessions of the legacy API (issue 22, docs/legacy.md): what the legacy path
 * `POST /v1/analysis/{analysis_id}` names. Created, listed and deleted through v1
 * (`/v1/legacy-analyses`); numbered 1, 2, 3 … per organization, an id never reused after a delete.
 * Create and delete each write a management audit row (resource_type `legacy_analysis`) in the same
 * transaction.
 */
import type { Clock } from '../lib/clock.ts';
import { Errors } from '../lib/errors.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Db } from '../store/db.ts';
import * as store from '../store/legacy.ts';
import type { LegacyAnalysisRow } from '../store/legacy.ts';

export type { LegacyAnalysisRow };

export interface LegacyAnalysisDeps {
  db: Db;
  clock: Clock;
}

/** Who performs a change: the calling principal's actor id and the request id. */
export interface LegacyActor {
  id: string;
  requestId: string | null;
}

/** A validated create body (api/routes/legacy-analyses/schema.ts checks it). */
export interface CreateAnalysisInput {
  name: string;
  description?: string | null | undefined;
}

/** Creates a session numbered one past the organization's last (its counter is row-locked meanwhile). */
export async function createAnalysis(
  deps: LegacyAnalysisDeps,
  orgId: string,
  input: CreateAnalysisInput,
  actor: LegacyActor,
): Promise<LegacyAnalysisRow> {
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const analysisId = await store.nextAnalysisId(tx, orgId);
    if (analysisId === null) throw new Error(`organization ${orgId} does not exist`);
    const row = await store.insertAnalysis(tx, {
      org_id: orgId,
      analysis_id: analysisId,
      name: input.name,
      description: input.description ?? null,
      created_by: actor.id,
      created_at: now,
    });
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'legacy_analysis',
      resourceId: String(analysisId),
      changeSummary: `legacy analysis session ${analysisId} created`,
    });
    return row;
  });
}

/** @throws ProblemError 404 `legacy_analyses.not_found` when the id is unknown in this organization. */
export async function getAnalysis(db: Db, orgId: string, analysisId: number): Promise<LegacyAnalysisRow> {
  const row = await store.getAnalysis(db, orgId, analysisId);
  if (!row) throw Errors.legacyAnalysisNotFound(analysisId);
  return row;
}

/** Whether the organization has this session: the legacy endpoint answers 404 ANALYSIS_NOT_FOUND when not. */
export function analysisExists(db: Db, orgId: string, analysisId: number): Promise<boolean> {
  return store.analysisExists(db, orgId, analysisId);
}

/** One page of the organization's sessions, newest first. */
export function listAnalyses(
  db: Db,
  orgId: string,
  beforeId: number | undefined,
  limit: number,
): Promise<Page<LegacyAnalysisRow>> {
  return fetchPage(limit, (n) => store.listAnalyses(db, orgId, beforeId, n));
}

/**
 * Deletes a session; the legacy endpoint answers 404 for its id from then on (the scans it recorded stay).
 * @throws ProblemError 404 `legacy_analyses.not_found` when the id is unknown in this organization.
 */
export async function deleteAnalysis(
  deps: LegacyAnalysisDeps,
  orgId: string,
  analysisId: number,
  actor: LegacyActor,
): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const gone = await store.deleteAnalysis(tx, orgId, analysisId);
    if (!gone) throw Errors.legacyAnalysisNotFound(analysisId);
    await insertManagementAudit(tx, orgId, {
      created: deps.clock.now(),
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'legacy_analysis',
      resourceId: String(analysisId),
      changeSummary: `legacy analysis session ${analysisId} deleted`,
    });
  });
}
