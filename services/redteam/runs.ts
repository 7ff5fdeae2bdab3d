/**
 * Red-team runs (issue 20; docs/api.md, Red-team runs): a run is created `running` with the operator's
 * declared scope and consents, then finalized once with a verdict. Creation needs written
 * authorization; a finished run takes no further finalize or findings (409). Create and finalize each
 * write a management audit row (resource_type `redteam_run`) in the same transaction.
 */
import type { Clock } from '../../lib/clock.ts';
import { Errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { fetchPage, type Page } from '../../lib/keyset-page.ts';
import { insertManagementAudit } from '../../store/audit.ts';
import { withTransaction, type Db } from '../../store/db.ts';
import * as store from '../../store/redteam.ts';
import type { RedteamRunRow, Severity } from '../../store/redteam.ts';

export interface RedteamDeps {
  db: Db;
  clock: Clock;
}

/** Who performs a change: the calling principal's actor id and the request id. */
export interface RedteamActor {
  id: string;
  requestId: string | null;
}

/** A validated create body (api/routes/redteam-runs/schema.ts checks it). */
export interface CreateRunInput {
  scope_hash: string;
  scope_redacted?: Record<string, unknown> | null | undefined;
  upload_enabled: boolean;
  training_consent: boolean;
  written_authorization: boolean;
  attached_authenticated: boolean;
  started_at: Date;
  model_versions: Record<string, string>;
  corpus_hashes: Record<string, string>;
  redteam_version: string;
  operator_id?: string | null | undefined;
}

/** A validated finalize body. */
export interface FinalizeRunInput {
  finished_at: Date;
  verdict: Severity;
  verdict_reason?: string | null | undefined;
}

/**
 * Creates a run in state `running`.
 * @throws ProblemError 400 `redteam.written_authorization_required` when `written_authorization` is false.
 */
export async function createRun(
  deps: RedteamDeps,
  orgId: string,
  input: CreateRunInput,
  actor: RedteamActor,
): Promise<RedteamRunRow> {
  if (!input.written_authorization) throw Errors.redteamWrittenAuthorizationRequired();
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const run = await store.insertRun(tx, {
      id: newId('redteamRun', now.getTime()),
      org_id: orgId,
      scope_hash: input.scope_hash,
      scope_redacted: input.scope_redacted ?? null,
      upload_enabled: input.upload_enabled,
      training_consent: input.training_consent,
      written_authorization: input.written_authorization,
      attached_authenticated: input.attached_authenticated,
      started_at: input.started_at,
      model_versions: input.model_versions,
      corpus_hashes: input.corpus_hashes,
      redteam_version: input.redteam_version,
      operator_id: input.operator_id ?? null,
      created_by: actor.id,
      created_at: now,
    });
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'redteam_run',
      resourceId: run.id,
      changeSummary: `red-team run created (redteam ${input.redteam_version}, scope ${input.scope_hash.slice(0, 12)}…)`,
    });
    return run;
  });
}

/** @throws ProblemError 404 `redteam.run_not_found` when the id is unknown in this organization. */
export async function getRun(deps: RedteamDeps, orgId: string, id: string): Promise<RedteamRunRow> {
  const run = await store.getRun(deps.db, orgId, id);
  if (!run) throw Errors.redteamRunNotFound(id);
  return run;
}

/** One page of the organization's runs, newest first, optionally of one state. */
export function listRuns(
  deps: RedteamDeps,
  orgId: string,
  state: 'running' | 'finished' | undefined,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<RedteamRunRow>> {
  return fetchPage(limit, (n) => store.listRuns(deps.db, orgId, state, beforeId, n));
}

/**
 * Finalizes a running run under its row lock, so of two concurrent finalizes one succeeds and the
 * other sees the finished run. Checks, in order: unknown run (404), already finished (409),
 * `finished_at` before `started_at` (400).
 */
export async function finalizeRun(
  deps: RedteamDeps,
  orgId: string,
  id: string,
  input: FinalizeRunInput,
  actor: RedteamActor,
): Promise<RedteamRunRow> {
  return withTransaction(deps.db, async (tx) => {
    const run = await store.getRun(tx, orgId, id, true);
    if (!run) throw Errors.redteamRunNotFound(id);
    if (run.state === 'finished') throw Errors.redteamRunAlreadyFinalized(id);
    if (input.finished_at.getTime() < run.started_at.getTime()) {
      throw Errors.validationFailed([
        { path: 'finished_at', message: `must not be before the run's started_at (${run.started_at.toISOString()})` },
      ]);
    }
    const finished = await store.finishRun(tx, orgId, id, {
      finished_at: input.finished_at,
      verdict: input.verdict,
      verdict_reason: input.verdict_reason ?? null,
    });
    const now = deps.clock.now();
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'redteam_run',
      resourceId: id,
      changeSummary: `red-team run finalized with verdict ${input.verdict}`,
    });
    return finished;
  });
}
