import type { Queryable } from './db.ts';
import { Where } from './where.ts';

export type LabeledEventSource = 'redteam' | 'production_sample' | 'feedback' | 'reviewed';
export type LabeledEventSeverity = 'critical' | 'high' | 'medium' | 'low' | 'info';

/** A labeled event as stored: redacted text only, never the raw input or output. */
export interface LabeledEventRow {
  id: string;
  org_id: string;
  source: LabeledEventSource;
  observed_at: Date;
  input_redacted: string | null;
  output_redacted: string | null;
  verdict: string | null;
  verdict_confidence: number | null;
  verdict_reason: string | null;
  severity: LabeledEventSeverity | null;
  framework_refs: unknown[];
  comparator: unknown;
  /** Absent from list rows (the list answers without it). */
  source_data?: Record<string, unknown> | null;
  run_id: string | null;
  training_consent: boolean;
  redaction_version: string;
  redaction_policy_id: string | null;
  evidence_blob_keys: unknown[];
  created_at: Date;
}

export type NewLabeledEventRow = Required<LabeledEventRow>;

const LIST_COLUMNS =
  'id, org_id, source, observed_at, input_redacted, output_redacted, verdict, verdict_confidence, verdict_reason, ' +
  'severity, framework_refs, comparator, run_id, training_consent, redaction_version, redaction_policy_id, ' +
  'evidence_blob_keys, created_at';
const COLUMNS = `${LIST_COLUMNS}, source_data`;

const INSERT_COLUMNS = COLUMNS.split(', ');
const JSON_COLUMNS = new Set(['framework_refs', 'comparator', 'source_data', 'evidence_blob_keys']);

/** Inserts a whole append in one statement (all or nothing). */
export async function insertLabeledEvents(q: Queryable, rows: NewLabeledEventRow[]): Promise<void> {
  const args: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = INSERT_COLUMNS.map((c) => {
      const v = row[c as keyof NewLabeledEventRow];
      args.push(JSON_COLUMNS.has(c) && v !== null ? JSON.stringify(v) : v);
      return `$${args.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  await q.query(`INSERT INTO labeled_events (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, args);
}

export interface LabeledEventFilters {
  source?: LabeledEventSource | undefined;
  severity?: LabeledEventSeverity | undefined;
  training_consent?: boolean | undefined;
  /** Inclusive. */
  observed_after?: Date | undefined;
  /** Exclusive. */
  observed_before?: Date | undefined;
  run_id?: string | undefined;
}

/** A keyset position in the list's order (observed_at descending, then id descending). */
export interface LabeledEventPosition {
  observed_at: Date;
  id: string;
}

/** One page of the organization's labeled events (without source_data), newest observation first. */
export async function listLabeledEvents(
  q: Queryable,
  orgId: string,
  f: LabeledEventFilters,
  after: LabeledEventPosition | undefined,
  limit: number,
): Promise<LabeledEventRow[]> {
  const w = new Where(orgId)
    .add('source = ?', f.source)
    .add('severity = ?', f.severity)
    .add('training_consent = ?', f.training_consent)
    .add('observed_at >= ?', f.observed_after)
    .add('observed_at < ?', f.observed_before)
    .add('run_id = ?', f.run_id);
  if (after) w.add(`(observed_at, id) < (?, ${w.param(after.id)})`, after.observed_at);
  const { rows } = await q.query<LabeledEventRow>(
    `SELECT ${LIST_COLUMNS} FROM labeled_events WHERE ${w.toString()}
      ORDER BY observed_at DESC, id DESC LIMIT ${w.param(limit)}`,
    w.args,
  );
  return rows;
}

export async function getLabeledEvent(q: Queryable, orgId: string, id: string): Promise<LabeledEventRow | null> {
  const { rows } = await q.query<LabeledEventRow>(
    `SELECT ${COLUMNS} FROM labeled_events WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** Hard-deletes one event; returns its source, or null when the id is unknown in the organization. */
export async function deleteLabeledEvent(
  q: Queryable,
  orgId: string,
  id: string,
): Promise<{ source: LabeledEventSource } | null> {
  const { rows } = await q.query<{ source: LabeledEventSource }>(
    'DELETE FROM labeled_events WHERE org_id = $1 AND id = $2 RETURNING source',
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** Which of `ids` name a labeled event of this organization (a red-team finding's representative event). */
export async function existingLabeledEvents(q: Queryable, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await q.query<{ id: string }>(
    'SELECT id FROM labeled_events WHERE org_id = $1 AND id = ANY($2::text[])',
    [orgId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** A labeled event as a model's calibration reads it (`npm run models:calibrate -- --org`). */
export interface CalibrationEventRow {
  source: LabeledEventSource;
  verdict: string | null;
  input_redacted: string | null;
  /** source_data.attack_class, when the event names one */
  attack_class: string | null;
}

/**
 * The organization's labeled events that may calibrate a model — with training consent and an input —
 * newest observation first, at most `limit`, and how many events it has without consent (not read).
 */
export async function calibrationEvents(
  q: Queryable,
  orgId: string,
  limit: number,
): Promise<{ rows: CalibrationEventRow[]; withoutConsent: number }> {
  const { rows } = await q.query<CalibrationEventRow>(
    `SELECT source, verdict, input_redacted, source_data->>'attack_class' AS attack_class
       FROM labeled_events WHERE org_id = $1 AND training_consent AND input_redacted IS NOT NULL
      ORDER BY observed_at DESC, id DESC LIMIT $2`,
    [orgId, limit],
  );
  const { rows: count } = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM labeled_events WHERE org_id = $1 AND NOT training_consent',
    [orgId],
  );
  return { rows, withoutConsent: count[0]!.n };
}
