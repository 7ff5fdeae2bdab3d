/**
 * How a stored scan is shown outside, in one place: the Scan resource (the scans routes, a stream's
 * `decision` event) and the `data` of a scan webhook event (services/webhooks/envelope.ts).
 */
import type { ScanRow } from '../store/scans.ts';
import type { ScanFinding } from './scan-findings.ts';

/**
 * A stored scan: the row as the scans repository reads it (timestamps as Dates) or as a claimed
 * webhook delivery carries it (`to_jsonb`, timestamps as ISO strings).
 */
export type StoredScan = Omit<ScanRow, 'created_at' | 'content_expires_at'> & {
  created_at: Date | string;
  content_expires_at: Date | string | null;
};

/**
 * The context as submitted plus `end_user_id_hash` (the spec): all six keys, null when not submitted;
 * `end_user_id` also null where the deployment drops it (SCAN_END_USER_ID=drop).
 */
function presentContext(row: StoredScan) {
  return {
    agent_id: row.agent_id,
    session_id: row.session_id,
    mcp_server: row.mcp_server,
    trace_id: row.trace_id,
    end_user_id: row.end_user_id ?? null,
    end_user_id_hash: row.end_user_id_hash,
  };
}

/** Whether the scan captured its content and the content is still inside its retention window. */
function contentRetained(row: StoredScan, now: Date): boolean {
  return row.content !== null && row.content_expires_at !== null && new Date(row.content_expires_at) > now;
}

/**
 * The Scan resource. `context` always has its five keys; `content` appears only when captured and
 * still inside its retention window.
 */
export function presentScan(row: StoredScan, now: Date) {
  return {
    id: row.id,
    created: new Date(row.created_at).toISOString(),
    kind: row.kind,
    surface: row.surface,
    context: presentContext(row),
    findings: row.findings,
    decision: row.decision,
    content_stored: row.content_stored,
    ...(contentRetained(row, now) ? { content: row.content } : {}),
  };
}

export type ScanResource = ReturnType<typeof presentScan>;

/**
 * A scan event's `data`: a compact summary (decision, scores, per-detector finding counts and labels,
 * context) that never holds raw content; with `includeContent`, also the full findings and the
 * captured content (only when the scan captured it and it has not expired: content the caller did not
 * let us keep is never stored for webhooks either). The full scan is `GET /v1/scans/{scan_id}`.
 */
export function presentScanEvent(row: StoredScan, includeContent: boolean, now: Date): Record<string, unknown> {
  const findings = row.findings as ScanFinding[];
  const data: Record<string, unknown> = {
    scan_id: row.id,
    created: new Date(row.created_at).toISOString(),
    kind: row.kind,
    surface: row.surface,
    tier: row.tier,
    action: row.action,
    decision: row.decision,
    scores: row.scores,
    detectors: findings.map((f) => ({
      detector: f.detector,
      findings: f.items.length,
      labels: [...new Set(f.items.map((i) => i.label).filter((l): l is string => typeof l === 'string'))],
    })),
    context: presentContext(row),
    content_chars: row.content_chars,
    content_stored: row.content_stored,
    latency_ms: row.latency_ms,
  };
  if (includeContent) {
    data.findings = row.findings;
    if (contentRetained(row, now)) data.content = row.content;
  }
  return data;
}
