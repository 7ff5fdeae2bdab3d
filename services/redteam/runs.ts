/**
 * Red-team runs (issue 20; docs/api.md, Red-team runs): a run is created `running` with the operator's
 * declared scope and consents, then finalized once with a verdict. Creation needs written
 * authorization; a finished run takes no further finalize or findings (409). Create and finalize each
 * write a management audit row (resource_type `redteam_run`) in the same transaction.
 *
 * What a caller writes is redacted or refused before any transaction starts (so no row lock waits on
 * the PII model): free text (`scope_redacted`'s strings, `verdict_reason`) is redacted under the
 * organization's redaction policy; names kept verbatim (`model_versions`, `corpus_hashes`,
 * `redteam_version`, `operator_id`) are refused when they hold an identifier the policy hides.
 */
import type { Clock } from '../../lib/clock.ts';
import { Errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { fetchPage, type Page } from '../../lib/keyset-page.ts';
import { insertManagementAudit } from '../../store/audit.ts';
import { withTransaction, type Db } from '../../store/db.ts';
import * as store from '../../store/redteam.ts';
import type { RedteamRunRow, Severity } from '../../store/redteam.ts';
import { withRedactor, type Identifier, type Redact, type RedactionDeps } from '../redaction/redactor.ts';

export interface RedteamDeps {
  db: Db;
  clock: Clock;
  redaction: RedactionDeps;
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
 * Refuses verbatim strings holding an identifier the redaction policy hides.
 * @throws ProblemError 400 `redteam.identifier_contains_pii` naming every offending path.
 */
export function refuseIdentifiers(redact: Redact, identifiers: readonly Identifier[]): void {
  const issues = redact.identifierIssues(identifiers);
  if (issues.length > 0) throw Errors.redteamIdentifierPii(issues);
}

/** A map's keys (named by the map: a key is never echoed) and values (named by their key). */
const mapIdentifiers = (map: Record<string, string>, at: string): Identifier[] =>
  Object.entries(map).flatMap(([k, v]): Identifier[] => [
    [at, k],
    [`${at}.${k}`, v],
  ]);

/** The strings of a create body kept verbatim: names a run is recognised and compared by. */
function runIdentifiers(input: CreateRunInput): Identifier[] {
  return [
    ...mapIdentifiers(input.model_versions, 'model_versions'),
    ...mapIdentifiers(input.corpus_hashes, 'corpus_hashes'),
    ['redteam_version', input.redteam_version],
    ...(input.operator_id ? [['operator_id', input.operator_id] as const] : []),
  ];
}

/**
 * Creates a run in state `running`, its `scope_redacted` redacted (every string, object keys included).
 * @throws ProblemError 400 `redteam.written_authorization_required` when `written_authorization` is
 * false, 400 `redteam.identifier_contains_pii`, 503 `service.overloaded`, 504
 * `redaction_policy.redactor_deadline_exceeded`.
 */
export async function createRun(
  deps: RedteamDeps,
  orgId: string,
  input: CreateRunInput,
  actor: RedteamActor,
): Promise<RedteamRunRow> {
  if (!input.written_authorization) throw Errors.redteamWrittenAuthorizationRequired();
  const { value: scope } = await withRedactor(deps.redaction, orgId, async (redact) => {
    refuseIdentifiers(redact, runIdentifiers(input));
    return input.scope_redacted
      ? ((await redact.value(input.scope_redacted, 'scope_redacted')) as Record<string, unknown>)
      : null;
  });
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const run = await store.insertRun(tx, {
      id: newId('redteamRun', now.getTime()),
      org_id: orgId,
      scope_hash: input.scope_hash,
      scope_redacted: scope,
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
 * `finished_at` before `started_at` (400); then `verdict_reason` is redacted, outside the lock, and the
 * checks are made again under it.
 * @throws also 503 `service.overloaded`, 504 `redaction_policy.redactor_deadline_exceeded`.
 */
export async function finalizeRun(
  deps: RedteamDeps,
  orgId: string,
  id: string,
  input: FinalizeRunInput,
  actor: RedteamActor,
): Promise<RedteamRunRow> {
  checkFinalizable(await store.getRun(deps.db, orgId, id), id, input);
  const { value: reason } = await withRedactor(deps.redaction, orgId, (redact) =>
    redact.optional(input.verdict_reason, 'verdict_reason'),
  );
  return withTransaction(deps.db, async (tx) => {
    const run = checkFinalizable(await store.getRun(tx, orgId, id, true), id, input);
    const finished = await store.finishRun(tx, orgId, run.id, {
      finished_at: input.finished_at,
      verdict: input.verdict,
      verdict_reason: reason,
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

/** The run, if `input` may finalize it. */
function checkFinalizable(run: RedteamRunRow | null, id: string, input: FinalizeRunInput): RedteamRunRow {
  if (!run) throw Errors.redteamRunNotFound(id);
  if (run.state === 'finished') throw Errors.redteamRunAlreadyFinalized(id);
  if (input.finished_at.getTime() < run.started_at.getTime()) {
    throw Errors.validationFailed([
      { path: 'finished_at', message: `must not be before the run's started_at (${run.started_at.toISOString()})` },
    ]);
  }
  return run;
}
