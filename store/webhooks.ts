import type { Queryable } from './db.ts';
import { Where } from './where.ts';

export const WEBHOOK_EVENT_TYPES = [
  'scan.blocked',
  'scan.flagged',
  'scan.warned',
  'scan.allowed',
  'webhook.failing',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A webhook as stored; the secrets stay sealed (services/webhooks/secrets.ts). */
export interface WebhookRow {
  org_id: string;
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  include_content: boolean;
  active: boolean;
  secret_enc: Buffer;
  previous_secret_enc: Buffer | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  last_failure_at: Date | null;
  created_at: Date;
}

const WEBHOOK_COLUMNS =
  'org_id, id, url, description, events, include_content, active, secret_enc, previous_secret_enc, previous_secret_expires_at, consecutive_failures, last_failure_at, created_at';

export async function insertWebhook(q: Queryable, w: WebhookRow): Promise<WebhookRow> {
  const { rows } = await q.query<WebhookRow>(
    `INSERT INTO webhooks (${WEBHOOK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${WEBHOOK_COLUMNS}`,
    [
      w.org_id,
      w.id,
      w.url,
      w.description,
      w.events,
      w.include_content,
      w.active,
      w.secret_enc,
      w.previous_secret_enc,
      w.previous_secret_expires_at,
      w.consecutive_failures,
      w.last_failure_at,
      w.created_at,
    ],
  );
  return rows[0]!;
}

export async function getWebhook(
  q: Queryable,
  orgId: string,
  id: string,
  forUpdate = false,
): Promise<WebhookRow | null> {
  const { rows } = await q.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** One page of the organization's webhooks, newest first (ids are time-ordered). */
export async function listWebhooks(
  q: Queryable,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<WebhookRow[]> {
  const { rows } = await q.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [orgId, beforeId ?? null, limit],
  );
  return rows;
}

/**
 * Deletes a webhook and its deliveries (pending ones are never attempted); false when absent. The
 * webhook row is locked before its deliveries — the order the pump records outcomes in
 * (`lockWebhooks`), so a delete and a pump's batch never wait on each other in a cycle.
 */
export async function deleteWebhook(q: Queryable, orgId: string, id: string): Promise<boolean> {
  const { rowCount } = await q.query('DELETE FROM webhooks WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!rowCount) return false;
  await q.query('DELETE FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2', [orgId, id]);
  return true;
}

/** Installs a new current secret, keeping `previous` (or none) valid until `previousExpiresAt`. */
export async function setSecrets(
  q: Queryable,
  orgId: string,
  id: string,
  current: Buffer,
  previous: Buffer | null,
  previousExpiresAt: Date | null,
): Promise<void> {
  await q.query(
    'UPDATE webhooks SET secret_enc = $3, previous_secret_enc = $4, previous_secret_expires_at = $5 WHERE org_id = $1 AND id = $2',
    [orgId, id, current, previous, previousExpiresAt],
  );
}

/** What the scan path needs to know to enqueue events: the organization's active webhooks and their events. */
export interface Subscription {
  id: string;
  events: WebhookEventType[];
}

export async function listSubscriptions(q: Queryable, orgId: string): Promise<Subscription[]> {
  const { rows } = await q.query<Subscription>(
    'SELECT id, events FROM webhooks WHERE org_id = $1 AND active ORDER BY id',
    [orgId],
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export interface DeliveryResponse {
  status_code: number;
  duration_ms: number;
  body_preview: string;
}

export interface DeliveryRow {
  org_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  event_created: Date;
  scan_id: string | null;
  data: Record<string, unknown> | null;
  status: DeliveryStatus;
  attempt: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  locked_until: Date | null;
  response: DeliveryResponse | null;
  error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  redelivery_of: string | null;
}

export const DELIVERY_COLUMNS =
  'org_id, id, webhook_id, event_id, event_type, event_created, scan_id, data, status, attempt, first_attempt_at, next_attempt_at, locked_until, response, error, created_at, delivered_at, redelivery_of';

/** A new delivery as enqueued: pending, attempt 1, due at `next_attempt_at`. */
export type NewDelivery = Pick<
  DeliveryRow,
  | 'org_id'
  | 'id'
  | 'webhook_id'
  | 'event_id'
  | 'event_type'
  | 'event_created'
  | 'scan_id'
  | 'data'
  | 'created_at'
  | 'next_attempt_at'
  | 'redelivery_of'
>;

/** The INSERT … SELECT of new deliveries from a JSON array parameter (also used inside the scan batch statement). */
export function insertDeliveriesSql(param: string): string {
  return `INSERT INTO webhook_deliveries (org_id, id, webhook_id, event_id, event_type, event_created, scan_id, data, status, attempt, next_attempt_at, created_at, redelivery_of)
    SELECT org_id, id, webhook_id, event_id, event_type, event_created, scan_id, data, 'pending', 1, next_attempt_at, created_at, redelivery_of
    FROM json_populate_recordset(NULL::webhook_deliveries, ${param}::json)`;
}

export async function insertDeliveries(q: Queryable, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length) await q.query(insertDeliveriesSql('$1'), [JSON.stringify(rows)]);
}

export async function getDelivery(q: Queryable, orgId: string, id: string): Promise<DeliveryRow | null> {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** One page of a webhook's deliveries, newest first; `since` (inclusive) is an id bound. */
export async function listDeliveries(
  q: Queryable,
  orgId: string,
  webhookId: string,
  f: { status?: DeliveryStatus | undefined; since?: Date | undefined },
  beforeId: string | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const where = new Where(orgId)
    .add('webhook_id = ?', webhookId)
    .add('status = ?', f.status)
    .idWindow('webhookDelivery', f.since, undefined, beforeId);
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY id DESC LIMIT ${where.param(limit)}`,
    where.args,
  );
  return rows;
}

/** Deliveries waiting for an attempt whose time has come ($1 = now) and that no live lease holds. */
const DUE = `status IN ('pending', 'failed') AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)`;

/** How many deliveries of every organization are due at `now` and unheld (what a claim would find). */
export async function countDueDeliveries(q: Queryable, now: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${DUE}`, [
    now,
  ]);
  return rows[0]!.n;
}

/** A claimed delivery with what sending it needs: its webhook (null when deleted meanwhile) and, for scan events, the scan. */
export interface ClaimedDelivery extends DeliveryRow {
  webhook: Pick<
    WebhookRow,
    'url' | 'include_content' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at'
  > | null;
  scan: Record<string, unknown> | null;
}

/**
 * Claims up to `limit` due deliveries of every organization (a system query: the pump serves all
 * tenants, and each row it returns carries its org_id), holding them until `lockedUntil`. Rows held
 * by another pump are skipped; rows whose holder died become due again when its lease passes.
 */
export async function claimDueDeliveries(
  q: Queryable,
  now: Date,
  lockedUntil: Date,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const { rows } = await q.query<DeliveryRow & { w_url: string | null } & Record<string, unknown>>(
    `WITH c AS (
       UPDATE webhook_deliveries d SET locked_until = $2
       FROM (SELECT org_id, id FROM webhook_deliveries
             WHERE ${DUE}
             ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
       WHERE d.org_id = due.org_id AND d.id = due.id
       RETURNING d.*)
     SELECT c.*, w.url AS w_url, w.include_content AS w_include_content, w.secret_enc AS w_secret_enc,
            w.previous_secret_enc AS w_previous_secret_enc, w.previous_secret_expires_at AS w_previous_secret_expires_at,
            CASE WHEN s.id IS NULL THEN NULL ELSE to_jsonb(s.*) END AS scan
     FROM c
     LEFT JOIN webhooks w ON w.org_id = c.org_id AND w.id = c.webhook_id
     LEFT JOIN scans s ON s.org_id = c.org_id AND s.id = c.scan_id
     ORDER BY c.next_attempt_at`,
    [now, lockedUntil, limit],
  );
  return rows.map((r) => {
    const {
      w_url,
      w_include_content,
      w_secret_enc,
      w_previous_secret_enc,
      w_previous_secret_expires_at,
      scan,
      ...delivery
    } = r;
    return {
      ...(delivery as unknown as DeliveryRow),
      webhook:
        w_url === null
          ? null
          : {
              url: w_url,
              include_content: w_include_content as boolean,
              secret_enc: w_secret_enc as Buffer,
              previous_secret_enc: w_previous_secret_enc as Buffer | null,
              previous_secret_expires_at: w_previous_secret_expires_at as Date | null,
            },
      scan: (scan as Record<string, unknown> | null) ?? null,
    };
  });
}

/** The outcome of one attempt, as the pump records it. */
export interface AttemptResult {
  org_id: string;
  id: string;
  webhook_id: string;
  /** The attempt's number (1–7). */
  attempt: number;
  status: Exclude<DeliveryStatus, 'pending'>;
  started_at: Date;
  next_attempt_at: Date | null;
  response: DeliveryResponse | null;
  error: string | null;
  delivered_at: Date | null;
}

/**
 * Records attempt outcomes. A row is updated only while it still waits for exactly that attempt,
 * so an attempt recorded twice (a pump whose lease ran out while it sent) changes nothing the
 * second time. Returns the results that were applied.
 */
export async function recordAttempts(q: Queryable, results: readonly AttemptResult[]): Promise<AttemptResult[]> {
  if (!results.length) return [];
  const { rows } = await q.query<{ org_id: string; id: string }>(
    `UPDATE webhook_deliveries d
     SET status = r.status, attempt = r.attempt, first_attempt_at = COALESCE(d.first_attempt_at, r.started_at),
         next_attempt_at = r.next_attempt_at, locked_until = NULL, response = r.response, error = r.error, delivered_at = r.delivered_at
     FROM json_to_recordset($1::json) AS r(org_id text, id text, attempt int, status text, started_at timestamptz,
          next_attempt_at timestamptz, response jsonb, error text, delivered_at timestamptz)
     WHERE d.org_id = r.org_id AND d.id = r.id AND d.status IN ('pending', 'failed')
       AND r.attempt = CASE d.status WHEN 'pending' THEN 1 ELSE d.attempt + 1 END
     RETURNING d.org_id, d.id`,
    [JSON.stringify(results)],
  );
  const applied = new Set(rows.map((r) => `${r.org_id}/${r.id}`));
  return results.filter((r) => applied.has(`${r.org_id}/${r.id}`));
}

/**
 * Locks the webhooks of a batch of outcomes (the system query of the pump, every organization's rows
 * by their keys), in (org_id, id) order, before the batch touches any delivery. A webhook's delete
 * locks its row before its deliveries too, so the two take their locks in one order; and two pumps
 * locking webhooks they share take them in one order. NO KEY UPDATE: what the streak update needs,
 * and it conflicts with a delete. A deleted webhook is simply not there to lock.
 */
export async function lockWebhooks(q: Queryable, keys: readonly { org_id: string; id: string }[]): Promise<void> {
  if (!keys.length) return;
  await q.query(
    `SELECT 1 FROM webhooks w JOIN json_to_recordset($1::json) AS k(org_id text, id text) ON w.org_id = k.org_id AND w.id = k.id
     ORDER BY w.org_id, w.id FOR NO KEY UPDATE OF w`,
    [JSON.stringify(keys)],
  );
}

/** Drops deliveries whose webhook no longer exists (deleted while a scan enqueued them). */
export async function deleteDeliveries(q: Queryable, keys: readonly { org_id: string; id: string }[]): Promise<void> {
  if (!keys.length) return;
  await q.query(
    `DELETE FROM webhook_deliveries d USING json_to_recordset($1::json) AS k(org_id text, id text) WHERE d.org_id = k.org_id AND d.id = k.id`,
    [JSON.stringify(keys)],
  );
}

/** Per-webhook change of the failure streak from one batch of outcomes. */
export interface StreakChange {
  org_id: string;
  id: string;
  /** A success in the batch resets the streak before `failures` are added. */
  reset: boolean;
  failures: number;
  last_failure_at: Date | null;
}

/** Applies streak changes; returns each webhook's new streak and the streak before `failures` were added. */
export async function updateFailureStreaks(
  q: Queryable,
  changes: readonly StreakChange[],
): Promise<{ org_id: string; id: string; before: number; after: number }[]> {
  if (!changes.length) return [];
  const { rows } = await q.query<{ org_id: string; id: string; after: number; failures: number }>(
    `UPDATE webhooks w
     SET consecutive_failures = CASE WHEN r.reset THEN 0 ELSE w.consecutive_failures END + r.failures,
         last_failure_at = COALESCE(r.last_failure_at, w.last_failure_at)
     FROM json_to_recordset($1::json) AS r(org_id text, id text, reset boolean, failures int, last_failure_at timestamptz)
     WHERE w.org_id = r.org_id AND w.id = r.id
     RETURNING w.org_id, w.id, w.consecutive_failures AS after, r.failures`,
    [JSON.stringify(changes)],
  );
  return rows.map((r) => ({ org_id: r.org_id, id: r.id, after: r.after, before: r.after - r.failures }));
}

/** The organization's active webhooks subscribed to `type`. */
export async function subscribersOf(q: Queryable, orgId: string, type: WebhookEventType): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    'SELECT id FROM webhooks WHERE org_id = $1 AND active AND $2 = ANY (events) ORDER BY id',
    [orgId, type],
  );
  return rows.map((r) => r.id);
}
