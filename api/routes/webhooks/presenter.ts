import type { z } from 'zod';
import type { DeliveryRow, WebhookRow } from '../../../store/webhooks.ts';
import { iso } from '../../present.ts';
import type { Webhook, WebhookDelivery, WebhookSecretRotation, WebhookWithSecret } from './schema.ts';

/** A webhook as the API returns it. Sealed secrets never leave the store. */
export function presentWebhook(w: WebhookRow): z.output<typeof Webhook> {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    events: w.events,
    include_content: w.include_content,
    active: w.active,
    last_failure_at: iso(w.last_failure_at),
    created_at: new Date(w.created_at).toISOString(),
  };
}

/** The create answer: the webhook and its new signing secret (shown only here). */
export function presentCreatedWebhook(w: WebhookRow, secret: string): z.output<typeof WebhookWithSecret> {
  return { ...presentWebhook(w), secret };
}

/** The rotation answer: the new secret and when the previous one stops being valid. */
export function presentSecretRotation(r: {
  webhook_id: string;
  secret: string;
  grace_expires_at: Date;
}): z.output<typeof WebhookSecretRotation> {
  return { webhook_id: r.webhook_id, secret: r.secret, grace_expires_at: r.grace_expires_at.toISOString() };
}

/** A delivery as the API returns it. */
export function presentDelivery(d: DeliveryRow): z.output<typeof WebhookDelivery> {
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
    created_at: new Date(d.created_at).toISOString(),
    delivered_at: iso(d.delivered_at),
    redelivery_of: d.redelivery_of,
  };
}
