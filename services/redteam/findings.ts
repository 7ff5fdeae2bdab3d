/**
 * Red-team findings (issue 20): added to a running run in batches of 1 to 100, listed per run. The
 * run row is locked while they are inserted, so findings never land on a run a concurrent finalize
 * has just finished. A `representative_event_id` must name a labeled event of the organization.
 * `title` and `description` (free text that may quote what a probe drew out) are redacted under the
 * organization's redaction policy before the lock is taken; `attack_class`, `remediation_class` and
 * the framework refs (names findings are grouped by) are refused when they hold what it hides.
 */
import { Errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { fetchPage, type Page } from '../../lib/keyset-page.ts';
import { insertManagementAudit } from '../../store/audit.ts';
import { withTransaction } from '../../store/db.ts';
import { existingLabeledEvents } from '../../store/labeled-events.ts';
import * as store from '../../store/redteam.ts';
import type { RedteamFindingRow, RedteamRunRow } from '../../store/redteam.ts';
import { frameworkRefIdentifiers, withRedactor, type Identifier } from '../redaction/redactor.ts';
import { refuseIdentifiers, type RedteamActor, type RedteamDeps } from './runs.ts';

/** One validated finding of an add-findings body. */
export type FindingInput = Omit<RedteamFindingRow, 'id' | 'org_id' | 'run_id' | 'created_at'>;

export interface AddFindingsInput {
  findings: FindingInput[];
}

export interface AddedFindings {
  accepted: number;
  finding_ids: string[];
}

/**
 * Adds findings to a running run, all or none. Checks, in order: unknown run (404), finished run
 * (409), identifiers holding PII (400), then the texts are redacted, then under the run's lock the run
 * again (404, 409) and a `representative_event_id` naming no labeled event of the organization (400).
 * @throws also 503 `service.overloaded`, 504 `redaction_policy.redactor_deadline_exceeded`.
 */
export async function addFindings(
  deps: RedteamDeps,
  orgId: string,
  runId: string,
  input: AddFindingsInput,
  actor: RedteamActor,
): Promise<AddedFindings> {
  checkRunning(await store.getRun(deps.db, orgId, runId), runId);
  const { value: redacted } = await withRedactor(deps.redaction, orgId, (redact) => {
    refuseIdentifiers(redact, input.findings.flatMap(identifiersOf));
    return Promise.all(
      input.findings.map(async (f) => {
        const [title, description] = await Promise.all([
          redact.text(f.title, 'title'),
          redact.text(f.description, 'description'),
        ]);
        return { ...f, title, description };
      }),
    );
  });
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    checkRunning(await store.getRun(tx, orgId, runId, true), runId);
    const named = [...new Set(input.findings.flatMap((f) => f.representative_event_id ?? []))];
    const known = await existingLabeledEvents(tx, orgId, named);
    const unknown = input.findings.flatMap((f, i) =>
      f.representative_event_id !== null && !known.has(f.representative_event_id)
        ? [{ path: `findings.${i}.representative_event_id`, message: 'names no labeled event of this organization' }]
        : [],
    );
    if (unknown.length > 0) throw Errors.redteamUnknownEvent(unknown);
    const rows = redacted.map((f) => ({ id: newId('redteamFinding', now.getTime()), ...f }));
    await store.insertFindings(tx, orgId, runId, now, rows);
    const classes = [...new Set(input.findings.map((f) => f.attack_class))];
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'redteam_run',
      resourceId: runId,
      changeSummary:
        `${rows.length} red-team finding(s) added (${classes.slice(0, 5).join(', ')}${classes.length > 5 ? ', …' : ''})`.slice(
          0,
          500,
        ),
    });
    return { accepted: rows.length, finding_ids: rows.map((r) => r.id) };
  });
}

function checkRunning(run: RedteamRunRow | null, runId: string): void {
  if (!run) throw Errors.redteamRunNotFound(runId);
  if (run.state === 'finished') throw Errors.redteamRunAlreadyFinalized(runId);
}

/** The strings of a finding kept verbatim, with their paths. */
function identifiersOf(f: FindingInput, i: number): Identifier[] {
  return [
    [`findings.${i}.attack_class`, f.attack_class],
    [`findings.${i}.remediation_class`, f.remediation_class],
    ...frameworkRefIdentifiers(f.framework_refs, `findings.${i}.framework_refs`),
  ];
}

/**
 * One page of a run's findings, newest first.
 * @throws ProblemError 404 `redteam.run_not_found` when the run is unknown in this organization.
 */
export async function listFindings(
  deps: RedteamDeps,
  orgId: string,
  runId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<RedteamFindingRow>> {
  if (!(await store.getRun(deps.db, orgId, runId))) throw Errors.redteamRunNotFound(runId);
  return fetchPage(limit, (n) => store.listFindings(deps.db, orgId, runId, beforeId, n));
}
