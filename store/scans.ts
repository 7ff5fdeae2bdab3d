import { DETECTION_EVENT_COLUMNS, type DetectionEvent } from './audit.ts';
import type { Queryable } from './db.ts';
import { insertDeliveriesSql, type NewDelivery } from './webhooks.ts';
import { Where } from './where.ts';

/** A scan as stored; JSON columns hold exactly what the API returns. */
export interface ScanRow {
  org_id: string;
  id: string;
  created_at: Date;
  kind: 'content' | 'toolset';
  surface: string;
  tier: string;
  agent_id: string | null;
  session_id: string | null;
  mcp_server: string | null;
  trace_id: string | null;
  /**
   * The end-user id as submitted (null: not submitted, or dropped by SCAN_END_USER_ID=drop). Optional:
   * rows read back from before migration 0015, and rows built without a context, leave it out.
   */
  end_user_id?: string | null;
  end_user_id_hash: string | null;
  action: string;
  decision: Record<string, unknown>;
  findings: unknown[];
  scores: Record<string, number>;
  content_stored: boolean;
  content: Record<string, unknown> | null;
  content_expires_at: Date | null;
  content_chars: number;
  latency_ms: number;
  api_key_id: string | null;
  request_id: string | null;
  /** Toolset scans: the tools listed, for re-evaluating MCP tool lists; null for content scans. */
  mcp_tools: { server: string; tool_name: string }[] | null;
  /** Observe mode: the action the policy would have taken; null when the decision was enforced. */
  observed_action: string | null;
}

const COLUMNS =
  'org_id, id, created_at, kind, surface, tier, agent_id, session_id, mcp_server, trace_id, end_user_id, end_user_id_hash, action, decision, findings, scores, content_stored, content, content_expires_at, content_chars, latency_ms, api_key_id, request_id, mcp_tools, observed_action';

/** The insert statement of each shape of batch (with events? with deliveries?), built once. */
const insertStatements = new Map<string, { name: string; text: string }>();

function insertStatement(events: boolean, deliveries: boolean): { name: string; text: string } {
  const name = `insert_scans_${events ? 'e' : ''}${deliveries ? 'd' : ''}`;
  let statement = insertStatements.get(name);
  if (statement) return statement;
  const statements = [
    `INSERT INTO scans (${COLUMNS}) SELECT ${COLUMNS} FROM json_populate_recordset(NULL::scans, $1::json)`,
  ];
  if (events) {
    statements.push(
      `INSERT INTO audit_events (${DETECTION_EVENT_COLUMNS}) SELECT ${DETECTION_EVENT_COLUMNS} FROM json_populate_recordset(NULL::audit_events, $2::json)`,
    );
  }
  if (deliveries) statements.push(insertDeliveriesSql(events ? '$3' : '$2'));
  const last = statements.pop()!;
  const text = statements.length ? `WITH ${statements.map((st, i) => `s${i} AS (${st})`).join(', ')} ${last}` : last;
  statement = { name, text };
  insertStatements.set(name, statement);
  return statement;
}

/**
 * Inserts many scans with their detection audit events and their webhook deliveries (the outbox) in
 * one statement (the group-commit writer's batch): each set is one JSON parameter expanded by
 * json_populate_recordset, the scans in a data-modifying CTE, so a batch costs one round trip
 * whatever its size and commits or fails whole: a committed scan's events are never lost. The
 * statement is a named prepared one (one per batch shape): each connection parses and plans it once,
 * later batches send only its parameters.
 */
export async function insertScans(
  q: Queryable,
  rows: readonly ScanRow[],
  events: readonly DetectionEvent[] = [],
  deliveries: readonly NewDelivery[] = [],
): Promise<void> {
  if (rows.length === 0) return;
  const values: string[] = [JSON.stringify(rows)];
  if (events.length) values.push(JSON.stringify(events));
  if (deliveries.length) values.push(JSON.stringify(deliveries));
  await q.query({ ...insertStatement(events.length > 0, deliveries.length > 0), values });
}

export async function getScan(q: Queryable, orgId: string, id: string): Promise<ScanRow | null> {
  const { rows } = await q.query<ScanRow>(`SELECT ${COLUMNS} FROM scans WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return rows[0] ?? null;
}

export interface ScanFilters {
  agent_id?: string | undefined;
  session_id?: string | undefined;
  end_user_id_hash?: string | undefined;
  action?: string | undefined;
  surface?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

/**
 * One page of the organization's scans, newest first. `since` is inclusive and `until` exclusive;
 * both become id bounds, so every filter is a range scan on an (org_id, <filter>, id) index.
 */
export async function listScans(
  q: Queryable,
  orgId: string,
  f: ScanFilters,
  beforeId: string | undefined,
  limit: number,
): Promise<ScanRow[]> {
  const where = new Where(orgId)
    .add('agent_id = ?', f.agent_id)
    .add('session_id = ?', f.session_id)
    .add('end_user_id_hash = ?', f.end_user_id_hash)
    .add('action = ?', f.action)
    .add('surface = ?', f.surface)
    .idWindow('scan', f.since, f.until, beforeId);
  const limitParam = where.param(limit);
  const { rows } = await q.query<ScanRow>(
    `SELECT ${COLUMNS} FROM scans WHERE ${where} ORDER BY id DESC LIMIT ${limitParam}`,
    where.args,
  );
  return rows;
}

/** The columns a policy re-decision reads (a backtest); findings only when asked, being the largest. */
const DECISION_COLUMNS = 'id, surface, action, agent_id, session_id, mcp_server, mcp_tools, content_chars, scores';

/**
 * Up to `limit` scans of an id window in id order, for a backtest's keyset batches: ids from `from`
 * (inclusive, else strictly after it) to before `before`. Rows hold the decision columns only
 * (`findings` too when `withFindings`).
 */
export async function scansForDecision(
  q: Queryable,
  orgId: string,
  window: { from: string; inclusive: boolean; before: string; limit: number; withFindings: boolean },
): Promise<ScanRow[]> {
  const columns = window.withFindings ? `${DECISION_COLUMNS}, findings` : DECISION_COLUMNS;
  const { rows } = await q.query<ScanRow>(
    `SELECT ${columns} FROM scans WHERE org_id = $1 AND id ${window.inclusive ? '>=' : '>'} $2 AND id < $3 ORDER BY id LIMIT $4`,
    [orgId, window.from, window.before, window.limit],
  );
  return rows;
}

/** Whether the organization has a scan with an id strictly between `after` and `before`. */
export async function anyScanBetween(q: Queryable, orgId: string, after: string, before: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM scans WHERE org_id = $1 AND id > $2 AND id < $3 LIMIT 1', [
    orgId,
    after,
    before,
  ]);
  return rows.length > 0;
}

/** Rows per organization (tests and benchmarks). */
export async function countScans(q: Queryable, orgId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [orgId]);
  return rows[0]!.n;
}
