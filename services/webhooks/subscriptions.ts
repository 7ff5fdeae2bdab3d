/**
 * Webhooks: registration (with SSRF refusal), secrets (returned once, stored sealed), rotation with a
 * grace period, the deliveries list and redelivery, and the events a committed scan enqueues.
 * Sending is services/webhooks/pump.ts (envelope.ts, sender.ts). Every function takes the organization first.
 */
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/crypto.ts';
import { Errors } from '../../lib/errors.ts';
import { newId, newTimedId } from '../../lib/ids.ts';
import { fetchPage, type Page } from '../../lib/keyset-page.ts';
import { insertManagementAudit } from '../../store/audit.ts';
import { withTransaction, type Db, type Queryable } from '../../store/db.ts';
import type { ScanRow } from '../../store/scans.ts';
import * as store from '../../store/webhooks.ts';
import type {
  DeliveryRow,
  DeliveryStatus,
  NewDelivery,
  Subscription,
  WebhookEventType,
  WebhookRow,
} from '../../store/webhooks.ts';
import type { Actor } from '../api-keys.ts';
import type { InvalidationBus } from '../invalidation-bus.ts';
import { OrgCache } from '../org-cache.ts';
import type { AllowList } from '../../lib/allow-list.ts';
import { checkWebhookUrl, type LookupAll } from './url-guard.ts';
import { encryptSecret, mintWebhookSecret } from './secrets.ts';

// The stored vocabulary, for the route schemas (api/ reaches store/ through services only).
export { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../store/webhooks.ts';

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  /** Published on every webhook change: drops the subscription caches of every process. */
  changes: InvalidationBus;
  subscriptions: SubscriptionCache;
  /** Internal receivers exempt from the private-address refusal (WEBHOOK_ALLOW_PRIVATE). */
  allow: AllowList;
  /** DNS resolution of registered host names; the system resolver unless a test passes one. */
  lookup?: LookupAll;
  /** Called after deliveries were committed outside the scan path (redelivery), so they go out at once. */
  onEnqueued?(): void;
}

/** A validated registration body (api/routes/webhooks/schema.ts checks it). */
export interface CreateWebhookInput {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
  include_content: boolean;
}

/** Checks a URL for registration. @throws ProblemError 400 `webhooks.url_invalid` / `url_refused` / `url_unresolvable`. */
async function acceptUrl(deps: WebhookDeps, raw: string): Promise<string> {
  const checked = await checkWebhookUrl(raw, deps.allow, deps.lookup);
  if ('url' in checked) return checked.url.href;
  switch (checked.reason) {
    case 'private_address':
    case 'metadata':
    case 'forbidden_host':
      throw Errors.webhookUrlRefused(checked.detail);
    case 'unresolvable':
      throw Errors.webhookUrlUnresolvable(checked.detail);
    default:
      throw Errors.webhookUrlInvalid(checked.detail);
  }
}

/**
 * Registers a webhook and mints its signing secret (returned here only).
 * @throws ProblemError 400 for a URL that is not https, is malformed, or is refused.
 */
export async function createWebhook(
  deps: WebhookDeps,
  orgId: string,
  input: CreateWebhookInput,
  actor: Actor,
): Promise<{ webhook: WebhookRow; secret: string }> {
  const url = await acceptUrl(deps, input.url);
  const now = deps.clock.now();
  const id = newId('webhook', now.getTime());
  const secret = mintWebhookSecret();
  const events = [...new Set(input.events)];
  const webhook = await withTransaction(deps.db, async (tx) => {
    const row = await store.insertWebhook(tx, {
      org_id: orgId,
      id,
      url,
      description: input.description ?? null,
      events,
      include_content: input.include_content,
      active: true,
      secret_enc: encryptSecret(deps.keyring.webhookSecretEncryption, orgId, id, secret),
      previous_secret_enc: null,
      previous_secret_expires_at: null,
      consecutive_failures: 0,
      last_failure_at: null,
      created_at: now,
    });
    await audit(
      tx,
      orgId,
      actor,
      now,
      id,
      `created webhook to ${url} for [${events.join(', ')}]${input.include_content ? ' with content' : ''}`,
    );
    return row;
  });
  await deps.changes.publish(orgId);
  return { webhook, secret };
}

export async function listWebhooks(
  deps: WebhookDeps,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<WebhookRow>> {
  return fetchPage(limit, (n) => store.listWebhooks(deps.db, orgId, beforeId, n));
}

/** @throws ProblemError 404 `webhooks.not_found`. */
export async function getWebhook(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookRow> {
  const row = await store.getWebhook(deps.db, orgId, id);
  if (!row) throw Errors.webhookNotFound(id);
  return row;
}

/** Deletes the webhook and its deliveries; nothing more is sent to it. @throws ProblemError 404. */
export async function deleteWebhook(deps: WebhookDeps, orgId: string, id: string, actor: Actor): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const row = await store.getWebhook(tx, orgId, id, true);
    if (!row) throw Errors.webhookNotFound(id);
    await store.deleteWebhook(tx, orgId, id);
    await audit(tx, orgId, actor, now, id, `deleted webhook to ${row.url}`);
  });
  await deps.changes.publish(orgId);
}

/**
 * Mints a new signing secret. The current one stays valid until `grace_expires_at` (now +
 * `graceSeconds`; 0 ends it at once); a secret still in an earlier grace period is dropped, so at
 * most two secrets are ever valid and deliveries carry one `v1=` for each.
 * @throws ProblemError 404.
 */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  orgId: string,
  id: string,
  graceSeconds: number,
  actor: Actor,
): Promise<{ webhook_id: string; secret: string; grace_expires_at: Date }> {
  const now = deps.clock.now();
  const secret = mintWebhookSecret();
  const graceExpiresAt = new Date(now.getTime() + graceSeconds * 1000);
  await withTransaction(deps.db, async (tx) => {
    const row = await store.getWebhook(tx, orgId, id, true);
    if (!row) throw Errors.webhookNotFound(id);
    const sealed = encryptSecret(deps.keyring.webhookSecretEncryption, orgId, id, secret);
    await store.setSecrets(
      tx,
      orgId,
      id,
      sealed,
      graceSeconds > 0 ? row.secret_enc : null,
      graceSeconds > 0 ? graceExpiresAt : null,
    );
    await audit(
      tx,
      orgId,
      actor,
      now,
      id,
      `rotated the signing secret; the previous one stays valid until ${graceExpiresAt.toISOString()}`,
    );
  });
  return { webhook_id: id, secret, grace_expires_at: graceExpiresAt };
}

/** One page of a webhook's deliveries, newest first. @throws ProblemError 404 when the webhook is unknown. */
export async function listDeliveries(
  deps: WebhookDeps,
  orgId: string,
  webhookId: string,
  f: { status?: DeliveryStatus | undefined; since?: Date | undefined },
  beforeId: string | undefined,
  limit: number,
): Promise<Page<DeliveryRow>> {
  await getWebhook(deps, orgId, webhookId);
  return fetchPage(limit, (n) => store.listDeliveries(deps.db, orgId, webhookId, f, beforeId, n));
}

/**
 * Redelivery: a new attempt chain (new delivery id, attempt 1, the full retry schedule) for the same
 * event — same event id, type, `created` and data — to the same webhook, e.g. after a receiver
 * outage dead-lettered it, or to replay one the receiver lost. Only a finished delivery
 * (`succeeded` or `dead_lettered`) can be redelivered: one still retrying would race its own chain.
 * @throws ProblemError 404 `webhooks.delivery_not_found`, 409 `webhooks.delivery_in_progress`.
 */
export async function redeliver(
  deps: WebhookDeps,
  orgId: string,
  deliveryId: string,
  actor: Actor,
): Promise<DeliveryRow> {
  const now = deps.clock.now();
  const created = await withTransaction(deps.db, async (tx) => {
    const original = await store.getDelivery(tx, orgId, deliveryId);
    if (!original) throw Errors.webhookDeliveryNotFound(deliveryId);
    if (original.status === 'pending' || original.status === 'failed')
      throw Errors.webhookDeliveryInProgress(deliveryId, original.status);
    const next: NewDelivery = {
      org_id: orgId,
      id: newTimedId('webhookDelivery', now.getTime()),
      webhook_id: original.webhook_id,
      event_id: original.event_id,
      event_type: original.event_type,
      event_created: original.event_created,
      scan_id: original.scan_id,
      data: original.data,
      created_at: now,
      next_attempt_at: now,
      redelivery_of: original.id,
    };
    await store.insertDeliveries(tx, [next]);
    await audit(
      tx,
      orgId,
      actor,
      now,
      original.webhook_id,
      `redelivered event ${original.event_id} (delivery ${original.id} → ${next.id})`,
    );
    return (await store.getDelivery(tx, orgId, next.id))!;
  });
  deps.onEnqueued?.();
  return created;
}

function audit(q: Queryable, orgId: string, actor: Actor, at: Date, webhookId: string, summary: string): Promise<void> {
  return insertManagementAudit(q, orgId, {
    created: at,
    actorId: actor.id,
    requestId: actor.requestId,
    resourceType: 'webhook',
    resourceId: webhookId,
    changeSummary: summary,
  });
}

/**
 * The scan path's view of webhooks: each organization's active webhooks and their event types,
 * cached (an organization without webhooks costs a map lookup per scan) and dropped on change.
 */
export class SubscriptionCache {
  private readonly cache: OrgCache<Subscription[]>;

  constructor(
    private readonly db: Db,
    changes: InvalidationBus,
    ttlMs: number,
  ) {
    this.cache = new OrgCache(changes, ttlMs);
  }

  of(orgId: string): Promise<Subscription[]> {
    return this.cache.get(orgId, '', () => store.listSubscriptions(this.db, orgId));
  }
}

/** A scan's canonical event id: one per scan (its decision is final), shared by every webhook it goes to. */
export function scanEventId(scanId: string): string {
  return `evt_${scanId.slice(scanId.indexOf('_') + 1)}`;
}

/**
 * The deliveries a scan enqueues, in the scan's own commit: one per webhook subscribed to
 * `scan.<action>`, plus the webhooks the deciding rule names in `then.notify` (whatever they
 * subscribe to). Ids of webhooks that no longer exist are skipped.
 */
export function scanDeliveries(
  subs: readonly Subscription[],
  row: Pick<ScanRow, 'org_id' | 'id' | 'action' | 'created_at'>,
  notify: readonly string[] = [],
): NewDelivery[] {
  if (subs.length === 0) return [];
  const type = `scan.${row.action}` as WebhookEventType;
  const out: NewDelivery[] = [];
  const eventId = scanEventId(row.id);
  const at = row.created_at.getTime();
  for (const s of subs) {
    if (!s.events.includes(type) && !notify.includes(s.id)) continue;
    out.push({
      org_id: row.org_id,
      id: newTimedId('webhookDelivery', at),
      webhook_id: s.id,
      event_id: eventId,
      event_type: type,
      event_created: row.created_at,
      scan_id: row.id,
      data: null,
      created_at: row.created_at,
      next_attempt_at: row.created_at,
      redelivery_of: null,
    });
  }
  return out;
}
