import type { Queryable } from './db.ts';

/**
 * A scan's findings with every item's `text` replaced by its label tag `[LABEL]`: what an uncaptured
 * scan stores from the start (services/scan-masking.ts, `labelTag`), here in SQL. Order is kept.
 */
const MASKED_FINDINGS = `(
  SELECT coalesce(jsonb_agg(
           jsonb_set(f, '{items}', (
             SELECT coalesce(jsonb_agg(jsonb_set(i, '{text}', to_jsonb('[' || (i->>'label') || ']')) ORDER BY n), '[]')
               FROM jsonb_array_elements(f->'items') WITH ORDINALITY AS x(i, n)))
           ORDER BY m), '[]')
    FROM jsonb_array_elements(findings) WITH ORDINALITY AS y(f, m))`;

/**
 * Clears the captured content of up to `batch` scans whose `content_expires_at` has passed, and masks
 * the text their findings quote from it; returns how many rows it cleared. `content_stored` and
 * `content_expires_at` stay, so the API can still say that content was captured (and has expired).
 * One short statement per batch: callers loop until 0.
 *
 * Cross-organization on purpose: retention is a system job over every tenant's rows, so unlike the
 * repositories this takes no orgId. The subquery walks `scans_content_expiry_idx` (partial on
 * `content IS NOT NULL`); SKIP LOCKED leaves rows another transaction holds to the next batch or run.
 */
export async function expireScanContent(q: Queryable, now: Date, batch: number): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE scans SET content = NULL, findings = ${MASKED_FINDINGS}
     WHERE (org_id, id) IN (
       SELECT org_id, id FROM scans
       WHERE content IS NOT NULL AND content_expires_at <= $1
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )`,
    [now, batch],
  );
  return rowCount ?? 0;
}

/**
 * Deletes up to `batch` finished deliveries (`succeeded`, `dead_lettered`) created before `cutoff`;
 * returns how many. Pending and retrying ones are never touched, whatever their age. Cross-
 * organization on purpose (a system job), on `webhook_deliveries_finished_idx`.
 */
export async function pruneFinishedDeliveries(q: Queryable, cutoff: Date, batch: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM webhook_deliveries
     WHERE (org_id, id) IN (
       SELECT org_id, id FROM webhook_deliveries
       WHERE status IN ('succeeded', 'dead_lettered') AND created_at < $1
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )`,
    [cutoff, batch],
  );
  return rowCount ?? 0;
}
