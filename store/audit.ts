import type { Queryable } from './db.ts';

/** A management audit row: an administrative mutation of a key, policy or webhook. */
export interface ManagementAudit {
  id: string;
  created: Date;
  actorId: string;
  requestId: string | null;
  resourceType: 'api_key' | 'policy' | 'webhook';
  resourceId: string;
  /** What changed, in words; never a secret. */
  changeSummary: string;
}

/** Appends a management audit event; call it inside the transaction of the change it records. */
export async function insertManagementAudit(q: Queryable, orgId: string, e: ManagementAudit): Promise<void> {
  await q.query(
    `INSERT INTO audit_events (id, org_id, kind, created, actor_id, request_id, resource_type, resource_id, change_summary)
     VALUES ($1, $2, 'management', $3, $4, $5, $6, $7, $8)`,
    [e.id, orgId, e.created, e.actorId, e.requestId, e.resourceType, e.resourceId, e.changeSummary],
  );
}
