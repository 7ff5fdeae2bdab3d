import { newTimedId } from '../lib/ids.ts';
import type { Queryable } from './db.ts';
import { Where } from './where.ts';

export const AUDIT_KINDS = ['detection', 'management'] as const;
export const AUDIT_RESOURCE_TYPES = [
  'api_key',
  'policy',
  'webhook',
  'organization',
  'invite',
  'user',
  'redaction_policy',
  'labeled_event',
  'redteam_run',
  'legacy_analysis',
] as const;

/** An audit event as stored (every kind; the columns a kind does not use are null or empty). */
export interface AuditEventRow {
  id: string;
  kind: (typeof AUDIT_KINDS)[number];
  created: Date;
  actor_id: string | null;
  request_id: string | null;
  scan_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  surface: string | null;
  detector: string | null;
  score: number | null;
  action: string | null;
  owasp_tags: string[];
  mitre_tags: string[];
  resource_type: (typeof AUDIT_RESOURCE_TYPES)[number] | null;
  resource_id: string | null;
  change_summary: string | null;
  /** Detection events: false when the scan's policy only observed (`action` is the would-be action). */
  enforced: boolean | null;
}

/** A detection event to insert with its scan (store/detection-events.ts derives it). */
export interface DetectionEvent {
  id: string;
  org_id: string;
  kind: 'detection';
  created: Date;
  actor_id: string | null;
  request_id: string | null;
  scan_id: string;
  agent_id: string | null;
  session_id: string | null;
  surface: string;
  detector: string | null;
  score: number | null;
  action: string;
  owasp_tags: string[];
  mitre_tags: string[];
  enforced: boolean;
}

/** The columns of a detection event, for `INSERT … SELECT … FROM json_populate_recordset(NULL::audit_events, …)`. */
export const DETECTION_EVENT_COLUMNS =
  'id, org_id, kind, created, actor_id, request_id, scan_id, agent_id, session_id, surface, detector, score, action, owasp_tags, mitre_tags, enforced';

const COLUMNS =
  'id, kind, created, actor_id, request_id, scan_id, agent_id, session_id, surface, detector, score, action, owasp_tags, mitre_tags, resource_type, resource_id, change_summary, enforced';

/** A management audit row: an administrative mutation of a key, policy, webhook, organization, invite or member. */
export interface ManagementAudit {
  /**
   * Leave it out: the store mints `aud_<ULID>` whose time is exactly `created`, which the audit
   * query's time window relies on (it is an id range).
   */
  id?: string;
  created: Date;
  actorId: string;
  requestId: string | null;
  resourceType: (typeof AUDIT_RESOURCE_TYPES)[number];
  resourceId: string;
  /** What changed, in words; never a secret. */
  changeSummary: string;
}

/** Appends a management audit event; call it inside the transaction of the change it records. */
export async function insertManagementAudit(q: Queryable, orgId: string, e: ManagementAudit): Promise<void> {
  await q.query(
    `INSERT INTO audit_events (id, org_id, kind, created, actor_id, request_id, resource_type, resource_id, change_summary)
     VALUES ($1, $2, 'management', $3, $4, $5, $6, $7, $8)`,
    [
      e.id ?? newTimedId('audit', e.created.getTime()),
      orgId,
      e.created,
      e.actorId,
      e.requestId,
      e.resourceType,
      e.resourceId,
      e.changeSummary,
    ],
  );
}

export interface AuditFilters {
  kind?: string | undefined;
  actor_id?: string | undefined;
  agent_id?: string | undefined;
  surface?: string | undefined;
  action?: string | undefined;
  detector?: string | undefined;
  resource_type?: string | undefined;
  resource_id?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

/**
 * One page of the organization's audit events, newest first. Ids are time-ordered, so `since`
 * (inclusive) and `until` (exclusive) are id bounds and each filter is a range scan on an
 * (org_id, <filter>, id) index (migration 0003).
 */
export async function listAuditEvents(
  q: Queryable,
  orgId: string,
  f: AuditFilters,
  beforeId: string | undefined,
  limit: number,
): Promise<AuditEventRow[]> {
  const where = new Where(orgId)
    .add('kind = ?', f.kind)
    .add('actor_id = ?', f.actor_id)
    .add('agent_id = ?', f.agent_id)
    .add('surface = ?', f.surface)
    .add('action = ?', f.action)
    .add('detector = ?', f.detector)
    .add('resource_type = ?', f.resource_type)
    .add('resource_id = ?', f.resource_id)
    .idWindow('audit', f.since, f.until, beforeId);
  const limitParam = where.param(limit);
  const { rows } = await q.query<AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events WHERE ${where} ORDER BY id DESC LIMIT ${limitParam}`,
    where.args,
  );
  return rows;
}
