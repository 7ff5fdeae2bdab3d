import type { z } from 'zod';
import type { Action, Surface } from '../../../engine/detector.ts';
import type { AuditEventRow } from '../../../store/audit.ts';
import type { AuditEvent } from './schema.ts';

/**
 * The Audit event's fields in the spec's order, then `enforced` (ours: detection events only, null
 * on management events). The CSV export's header row is this list.
 */
export const AUDIT_EVENT_FIELDS = [
  'id',
  'kind',
  'created',
  'actor_id',
  'request_id',
  'scan_id',
  'agent_id',
  'session_id',
  'surface',
  'detector',
  'score',
  'action',
  'owasp_tags',
  'mitre_tags',
  'resource_type',
  'resource_id',
  'change_summary',
  'enforced',
] as const;

/** The Audit event resource: every field always present (null or [] when the kind does not use it). */
export function presentAuditEvent(row: AuditEventRow): z.output<typeof AuditEvent> {
  return {
    id: row.id,
    kind: row.kind,
    created: new Date(row.created).toISOString(),
    actor_id: row.actor_id,
    request_id: row.request_id,
    scan_id: row.scan_id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    // Detection rows copy a scan's surface and action (store/detection-events.ts); the columns are text.
    surface: row.surface as Surface | null,
    detector: row.detector,
    score: row.score,
    action: row.action as Action | null,
    owasp_tags: row.owasp_tags,
    mitre_tags: row.mitre_tags,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    change_summary: row.change_summary,
    enforced: row.kind === 'detection' ? row.enforced : null,
  } satisfies Record<(typeof AUDIT_EVENT_FIELDS)[number], unknown>;
}
