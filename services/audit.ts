/**
 * The audit log read side: one filtered page of an organization's events. Detection events are
 * written with their scans (store/scan-writer.ts), management events with the change they record.
 */
import type { ListAuditEventsQuery } from '../api/routes/audit-events/schema.ts';
import type { Db } from '../store/db.ts';
import { listAuditEvents as listAuditRows, type AuditEventRow } from '../store/audit.ts';

/** One page, newest first; fetches one extra row to know whether another page follows. */
export async function listAuditEvents(
  db: Db,
  orgId: string,
  q: ListAuditEventsQuery,
  beforeId: string | undefined,
): Promise<{ rows: AuditEventRow[]; more: boolean }> {
  const rows = await listAuditRows(db, orgId, q, beforeId, q.limit + 1);
  const more = rows.length > q.limit;
  return { rows: more ? rows.slice(0, q.limit) : rows, more };
}
