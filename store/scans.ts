import { encodeTime } from 'ulid';
import { ID_PREFIX } from '../lib/ids.ts';
import type { Queryable } from './db.ts';

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
}

const COLUMNS =
  'org_id, id, created_at, kind, surface, tier, agent_id, session_id, mcp_server, trace_id, end_user_id_hash, action, decision, findings, scores, content_stored, content, content_expires_at, content_chars, latency_ms, api_key_id, request_id';

/**
 * Inserts many scans in one statement (the group-commit writer's batch): one JSON parameter
 * expanded by json_populate_recordset, so a batch costs one round trip whatever its size.
 */
export async function insertScans(q: Queryable, rows: readonly ScanRow[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(`INSERT INTO scans (${COLUMNS}) SELECT ${COLUMNS} FROM json_populate_recordset(NULL::scans, $1::json)`, [JSON.stringify(rows)]);
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

/** The smallest scan id at or after `t`: ids are `scan_<ULID>` and a ULID starts with its time. */
export function scanIdFloor(t: Date): string {
  return `${ID_PREFIX.scan}_${encodeTime(Math.max(0, t.getTime()), 10)}0000000000000000`;
}

/**
 * One page of the organization's scans, newest first. `since` is inclusive and `until` exclusive;
 * both become id bounds, so every filter is a range scan on an (org_id, <filter>, id) index.
 */
export async function listScans(q: Queryable, orgId: string, f: ScanFilters, beforeId: string | undefined, limit: number): Promise<ScanRow[]> {
  const where = ['org_id = $1'];
  const args: unknown[] = [orgId];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.agent_id !== undefined) add('agent_id = ?', f.agent_id);
  if (f.session_id !== undefined) add('session_id = ?', f.session_id);
  if (f.end_user_id_hash !== undefined) add('end_user_id_hash = ?', f.end_user_id_hash);
  if (f.action !== undefined) add('action = ?', f.action);
  if (f.surface !== undefined) add('surface = ?', f.surface);
  if (f.since !== undefined) add('id >= ?', scanIdFloor(f.since));
  if (f.until !== undefined) add('id < ?', scanIdFloor(f.until));
  if (beforeId !== undefined) add('id < ?', beforeId);
  args.push(limit);
  const { rows } = await q.query<ScanRow>(`SELECT ${COLUMNS} FROM scans WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${args.length}`, args);
  return rows;
}

/** Rows per organization (tests and benchmarks). */
export async function countScans(q: Queryable, orgId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [orgId]);
  return rows[0]!.n;
}
