import type { ScanRow } from '../../../store/scans.ts';

/**
 * The Scan resource. `context` always has its five keys (null when not submitted); the end-user id
 * itself is never returned, only its hash. `content` appears only when captured and still inside
 * its retention window.
 */
export function presentScan(row: ScanRow, now: Date) {
  const captured = row.content !== null && row.content_expires_at !== null && new Date(row.content_expires_at) > now;
  return {
    id: row.id,
    created: new Date(row.created_at).toISOString(),
    kind: row.kind,
    surface: row.surface,
    context: {
      agent_id: row.agent_id,
      session_id: row.session_id,
      mcp_server: row.mcp_server,
      trace_id: row.trace_id,
      end_user_id_hash: row.end_user_id_hash,
    },
    findings: row.findings,
    decision: row.decision,
    content_stored: row.content_stored,
    ...(captured ? { content: row.content } : {}),
  };
}

export type ScanResource = ReturnType<typeof presentScan>;
