import type { DeliveryRow, WebhookRow } from '../../../store/webhooks.ts';
import { iso } from '../../present.ts';

/** A webhook as the API returns it; `secret` only in the create response. Sealed secrets never leave the store. */
export function presentWebhook(w: WebhookRow, secret?: string) {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    events: w.events,
    include_content: w.include_content,
    active: w.active,
    last_failure_at: iso(w.last_failure_at),
    created_at: iso(w.created_at),
    ...(secret !== undefined ? { secret } : {}),
  };
}

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt: d.attempt,
    next_attempt_at: iso(d.next_attempt_at),
    response: d.response,
    error: d.error,
    created_at: iso(d.created_at),
    delivered_at: iso(d.delivered_at),
    redelivery_of: d.redelivery_of,
  };
}
