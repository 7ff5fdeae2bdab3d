/**
 * The legacy API's monthly quota (issue 22, docs/legacy.md): requests per organization and calendar
 * month (UTC), `LEGACY_MONTHLY_QUOTA` by default (the spec's free tier: 10,000), overridden per
 * organization by the operator (`npm run cli -- orgs set-legacy-quota`). Only allowed requests count;
 * the count starts again at 00:00 UTC on the 1st.
 */
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Db } from '../store/db.ts';
import { readUsage, setQuotaOverride, takeRequest } from '../store/legacy.ts';

/** The outcome of one take: whether the request may run, the limit, the month's count, when it resets. */
export interface LegacyTake {
  allowed: boolean;
  limit: number;
  used: number;
  resetsAt: Date;
}

/** The calendar month (UTC) of `now`: its key (`YYYY-MM`), first day and the instant the next begins. */
export function legacyMonth(now: Date): { month: string; firstDay: string; resetsAt: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const month = `${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}`;
  return { month, firstDay: `${month}-01`, resetsAt: new Date(Date.UTC(y, m + 1, 1)) };
}

/**
 * Counts one legacy request of `orgId` in the month of `now`, unless the month's limit is reached
 * (then nothing is counted). One atomic statement: concurrent requests never count past the limit.
 */
export async function takeLegacyRequest(db: Db, orgId: string, now: Date, defaultQuota: number): Promise<LegacyTake> {
  const { firstDay, resetsAt } = legacyMonth(now);
  const t = await takeRequest(db, orgId, firstDay, defaultQuota);
  if (t.taken !== null) return { allowed: true, limit: t.limit, used: t.taken, resetsAt };
  // Refused: the count reached the limit (or passed it, when the limit was lowered this month).
  return { allowed: false, limit: t.limit, used: Math.max(t.before, t.limit), resetsAt };
}

/** The month's usage as `GET /v1/legacy-usage` answers it. */
export async function legacyUsage(
  db: Db,
  orgId: string,
  now: Date,
  defaultQuota: number,
): Promise<{ month: string; limit: number; used: number; resetsAt: Date }> {
  const { month, firstDay, resetsAt } = legacyMonth(now);
  const { limit, used } = await readUsage(db, orgId, firstDay, defaultQuota);
  return { month, limit, used, resetsAt };
}

/**
 * Sets the organization's monthly limit (`null`: back to the default), with a management audit row
 * (resource_type `organization`). Takes effect on the next request; this month's count is kept.
 * @returns false when the organization does not exist
 */
export async function setLegacyQuota(
  db: Db,
  orgId: string,
  quota: number | null,
  actor: { id: string; requestId: string | null },
  now: Date,
): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    if (!(await setQuotaOverride(tx, orgId, quota))) return false;
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'organization',
      resourceId: orgId,
      changeSummary: `legacy monthly quota set to ${quota ?? 'the default'}`,
    });
    return true;
  });
}
