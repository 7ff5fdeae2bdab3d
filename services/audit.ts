/**
 * The audit log read side: one filtered page of an organization's events. Detection events are
 * written with their scans (store/scan-writer.ts), management events with the change they record.
 */
import type { Action, Surface } from '../engine/detector.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import type { Db } from '../store/db.ts';
import {
  AUDIT_KINDS,
  AUDIT_RESOURCE_TYPES,
  listAuditEvents as listAuditRows,
  type AuditEventRow,
} from '../store/audit.ts';

// The stored vocabulary, for the route schemas (api/ reaches store/ through services only).
export { AUDIT_KINDS, AUDIT_RESOURCE_TYPES };

/** A validated audit list query (api/routes/audit-events/schema.ts checks it): filters and page size. */
export interface ListAuditEventsInput {
  kind?: (typeof AUDIT_KINDS)[number] | undefined;
  actor_id?: string | undefined;
  agent_id?: string | undefined;
  surface?: Surface | undefined;
  action?: Action | undefined;
  detector?: string | undefined;
  resource_type?: (typeof AUDIT_RESOURCE_TYPES)[number] | undefined;
  resource_id?: string | undefined;
  /** Inclusive. */
  since?: Date | undefined;
  /** Exclusive. */
  until?: Date | undefined;
  limit: number;
}

/** One page, newest first; fetches one extra row to know whether another page follows. */
export async function listAuditEvents(
  db: Db,
  orgId: string,
  q: ListAuditEventsInput,
  beforeId: string | undefined,
): Promise<Page<AuditEventRow>> {
  return fetchPage(q.limit, (n) => listAuditRows(db, orgId, q, beforeId, n));
}
