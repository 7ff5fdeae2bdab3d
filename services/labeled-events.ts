/**
 * Labeled events (docs/api.md, Labeled events): an append checks the references (evidence uploads
 * verified in this organization, red-team runs of this organization), then redacts every free text
 * (`input`, `output`, `verdict_reason`, the comparator) under the organization's redaction policy and
 * refuses identifiers that carry what the policy hides, before anything is written, so no raw value a
 * caller sent reaches a table or a log; then inserts the whole batch in one statement. A red-team run's
 * training consent overrides the event's own.
 */
import { Errors } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import type { Clock } from '../lib/clock.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Db } from '../store/db.ts';
import { verifiedKeys } from '../store/evidence.ts';
import * as store from '../store/labeled-events.ts';
import { runsOfOrg } from '../store/redteam.ts';
import type {
  LabeledEventFilters,
  LabeledEventPosition,
  LabeledEventRow,
  LabeledEventSeverity,
  LabeledEventSource,
} from '../store/labeled-events.ts';
import {
  frameworkRefIdentifiers,
  redactEvents,
  redactTexts,
  type Identifier,
  type Redact,
  type RedactionDeps,
} from './redaction/redactor.ts';

export interface LabeledEventDeps {
  db: Db;
  clock: Clock;
  redaction: RedactionDeps;
}

/** The `source_data` of an event (a `redteam` event's carries `run_id`; the other sources' may not). */
export interface SourceDataInput {
  run_id?: string | undefined;
  iteration_index?: number | undefined;
  attack_class?: string | undefined;
  attack_subclass?: string | undefined;
  corpus_entry_id?: string | undefined;
  tokens_used?: Record<string, number> | undefined;
}

/** One validated event of an append (api/routes/labeled-events/schema.ts checks it). */
export interface LabeledEventInput {
  source: LabeledEventSource;
  observed_at: Date;
  input?: string | null | undefined;
  output?: string | null | undefined;
  verdict?: string | null | undefined;
  verdict_confidence?: number | null | undefined;
  verdict_reason?: string | null | undefined;
  severity?: LabeledEventSeverity | null | undefined;
  framework_refs: { framework: string; id: string }[];
  comparator?: Record<string, unknown> | null | undefined;
  source_data?: SourceDataInput | null | undefined;
  training_consent: boolean;
  evidence_blob_keys: { kind: string; storage_key: string }[];
}

export interface ListLabeledEventsInput extends LabeledEventFilters {
  limit: number;
}

export interface Actor {
  id: string;
  requestId: string | null;
}

/**
 * Appends 1–100 events, all or nothing; returns their ids in request order.
 * @throws ProblemError 400 `labeled_events.evidence_not_found` (a storage key not uploaded and verified
 * in this organization) or `labeled_events.unknown_run` (a run_id not of this organization), naming
 * every offending path.
 */
export async function appendLabeledEvents(
  deps: LabeledEventDeps,
  orgId: string,
  events: LabeledEventInput[],
): Promise<string[]> {
  await checkEvidence(deps, orgId, events);
  const runs = await checkRuns(deps, orgId, events);
  const redacted = await redactEvents(deps.redaction, orgId, events, {
    check: checkIdentifiers,
    redact: async (redact, e) => {
      const [texts, verdictReason] = await Promise.all([
        redactTexts(redact, e),
        redact.optional(e.verdict_reason, 'verdict_reason'),
      ]);
      return { ...texts, verdict_reason: verdictReason };
    },
  });
  const now = deps.clock.now();
  const rows: store.NewLabeledEventRow[] = events.map((e, i) => {
    const red = redacted.events[i]!;
    const runId = e.source === 'redteam' ? (e.source_data?.run_id ?? null) : null;
    return {
      id: newId('labeledEvent', now.getTime()),
      org_id: orgId,
      source: e.source,
      observed_at: e.observed_at,
      input_redacted: red.input_redacted,
      output_redacted: red.output_redacted,
      verdict: e.verdict ?? null,
      verdict_confidence: e.verdict_confidence ?? null,
      verdict_reason: red.verdict_reason,
      severity: e.severity ?? null,
      framework_refs: e.framework_refs,
      comparator: red.comparator ?? null,
      source_data: (e.source_data as Record<string, unknown> | null | undefined) ?? null,
      run_id: runId,
      // consent given (or withheld) on the run propagates to every event written under it
      training_consent: runId ? runs.get(runId)!.training_consent : e.training_consent,
      redaction_version: redacted.redaction_version,
      redaction_policy_id: redacted.redaction_policy_id,
      evidence_blob_keys: e.evidence_blob_keys,
      created_at: now,
    };
  });
  await withTransaction(deps.db, (tx) => store.insertLabeledEvents(tx, rows));
  return rows.map((r) => r.id);
}

/** The `source_data` names stored verbatim (beside `run_id`, which must name a run of the organization). */
const SOURCE_DATA_NAMES = ['attack_class', 'attack_subclass', 'corpus_entry_id'] as const;

/**
 * The strings of an event stored verbatim, with their paths: names that group and join events
 * (framework refs, source_data's attack class, subclass, corpus entry and token counter names,
 * evidence kinds). `run_id` and `storage_key` are verbatim too, but each must name a run or upload of
 * this organization, whose ids the service minted.
 */
function identifiersOf(e: LabeledEventInput, i: number): Identifier[] {
  const at = `events.${i}`;
  const data = e.source_data ?? {};
  return [
    ...frameworkRefIdentifiers(e.framework_refs, `${at}.framework_refs`),
    ...SOURCE_DATA_NAMES.flatMap((k): [string, string][] => {
      const v = data[k];
      return v === undefined ? [] : [[`${at}.source_data.${k}`, v]];
    }),
    // the key itself is never echoed: the path names the map
    ...Object.keys(data.tokens_used ?? {}).map((k): [string, string] => [`${at}.source_data.tokens_used`, k]),
    ...e.evidence_blob_keys.map((k, j): [string, string] => [`${at}.evidence_blob_keys.${j}.kind`, k.kind]),
  ];
}

/**
 * Refuses a batch whose verbatim strings hold a structured identifier the redaction policy hides.
 * @throws ProblemError 400 `labeled_events.identifier_contains_pii` naming every offending path.
 */
function checkIdentifiers(redact: Redact, events: readonly LabeledEventInput[]): void {
  const issues = redact.identifierIssues(events.flatMap(identifiersOf));
  if (issues.length > 0) throw Errors.labeledEventIdentifierPii(issues);
}

async function checkEvidence(deps: LabeledEventDeps, orgId: string, events: LabeledEventInput[]): Promise<void> {
  const keys = [...new Set(events.flatMap((e) => e.evidence_blob_keys.map((k) => k.storage_key)))];
  if (keys.length === 0) return;
  const verified = await verifiedKeys(deps.db, orgId, keys);
  const errors = events.flatMap((e, i) =>
    e.evidence_blob_keys.flatMap((k, j) =>
      verified.has(k.storage_key)
        ? []
        : [
            {
              path: `events.${i}.evidence_blob_keys.${j}.storage_key`,
              message: 'no verified upload with this storage key in this organization',
            },
          ],
    ),
  );
  if (errors.length > 0) throw Errors.labeledEventEvidenceNotFound(errors);
}

async function checkRuns(deps: LabeledEventDeps, orgId: string, events: LabeledEventInput[]) {
  const ids = [
    ...new Set(events.flatMap((e) => (e.source === 'redteam' && e.source_data?.run_id ? [e.source_data.run_id] : []))),
  ];
  const runs = await runsOfOrg(deps.db, orgId, ids);
  const errors = events.flatMap((e, i) => {
    const id = e.source === 'redteam' ? e.source_data?.run_id : undefined;
    return id && !runs.has(id)
      ? [{ path: `events.${i}.source_data.run_id`, message: 'no red-team run with this id in this organization' }]
      : [];
  });
  if (errors.length > 0) throw Errors.labeledEventUnknownRun(errors);
  return runs;
}

/** One page of the organization's events (without source_data), by observed_at then id, descending. */
export function listLabeledEvents(
  deps: LabeledEventDeps,
  orgId: string,
  input: ListLabeledEventsInput,
  after: LabeledEventPosition | undefined,
): Promise<Page<LabeledEventRow>> {
  return fetchPage(input.limit, (n) => store.listLabeledEvents(deps.db, orgId, input, after, n));
}

/**
 * One event with its source_data.
 * @throws ProblemError 404 `labeled_events.not_found` when the id is unknown in this organization.
 */
export async function getLabeledEvent(deps: LabeledEventDeps, orgId: string, id: string): Promise<LabeledEventRow> {
  const row = await store.getLabeledEvent(deps.db, orgId, id);
  if (!row) throw Errors.labeledEventNotFound(id);
  return row;
}

/**
 * Hard-deletes one event, with a management audit row in the same transaction.
 * @throws ProblemError 404 `labeled_events.not_found` when the id is unknown in this organization.
 */
export async function deleteLabeledEvent(deps: LabeledEventDeps, orgId: string, id: string, actor: Actor) {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const deleted = await store.deleteLabeledEvent(tx, orgId, id);
    if (!deleted) throw Errors.labeledEventNotFound(id);
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'labeled_event',
      resourceId: id,
      changeSummary: `labeled event (source ${deleted.source}) deleted`,
    });
  });
}
