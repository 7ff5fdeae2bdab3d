import { z } from 'zod';
import { ULID_BODY } from '../../../lib/ids.ts';
import {
  DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type CreateWebhookInput,
} from '../../../services/webhooks/subscriptions.ts';
import { MAX_ATTEMPTS } from '../../../services/webhooks/pump.ts';
import { instant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';
import { instant as sentInstant, nullableInstant, pageOf, resource } from '../../resources.ts';

export const webhookIdParams = z.object({
  webhook_id: z
    .string()
    .regex(new RegExp(`^wh_${ULID_BODY}$`), 'must be wh_ followed by 26 Crockford base32 characters'),
});

export const deliveryIdParams = z.object({
  delivery_id: z
    .string()
    .regex(new RegExp(`^whd_${ULID_BODY}$`), 'must be whd_ followed by 26 Crockford base32 characters'),
});

export const createWebhookBody = z.strictObject({
  // The service checks scheme, shape and addresses (webhooks.url_*); this only bounds the size.
  url: z.string().min(1, 'is required').max(4096, 'must be at most 2048 characters'),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1, 'must name at least one event type')
    .max(WEBHOOK_EVENT_TYPES.length * 2, `at most ${WEBHOOK_EVENT_TYPES.length} event types`),
  description: z.string().max(500, 'must be at most 500 characters').optional(),
  include_content: z.boolean().default(false),
});

// A validated body is what services/webhooks/subscriptions.ts declares: this stops compiling when the two drift.
createWebhookBody satisfies z.ZodType<CreateWebhookInput>;

export const rotateSecretBody = z.strictObject({
  grace_seconds: z
    .number()
    .int('must be an integer')
    .min(0, 'must be 0 to 604800')
    .max(604_800, 'must be 0 to 604800')
    .default(86_400),
});

export const listWebhooksQuery = pageQuery;

export const listDeliveriesQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  since: instant.optional(),
});

export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

/** The Webhook resource (docs/webhooks.md "Webhook fields"); never its secret. */
export const Webhook = resource(
  'Webhook',
  z.object({
    id: z.string().describe('`wh_` + a ULID.'),
    url: z.string().describe('The https URL deliveries are POSTed to, normalised (`new URL(url).href`).'),
    description: z.string().nullable(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).describe('The event types it subscribes to, without repeats.'),
    include_content: z
      .boolean()
      .describe("Scan events also carry the scan's `findings` and, when captured and retained, its `content`."),
    active: z.boolean().describe('Always true in this release (no pause operation; a failing webhook stays on).'),
    last_failure_at: nullableInstant.describe('Start of the latest failed attempt; null before any.'),
    created_at: sentInstant,
  }),
  'A webhook subscription.',
);

/** The create answer: the webhook with its signing secret, the only time the secret is shown. */
export const WebhookWithSecret = resource(
  'WebhookWithSecret',
  Webhook.extend({
    secret: z
      .string()
      .describe('The signing secret (`whsec_` + 43 base62 characters): shown only here and on rotation.'),
  }),
  'A newly created webhook, with its signing secret (shown once).',
);

/** `POST /v1/webhooks/{webhook_id}:rotate-secret`'s answer. */
export const WebhookSecretRotation = resource(
  'WebhookSecretRotation',
  z.object({
    webhook_id: z.string(),
    secret: z.string().describe('The new signing secret, which signs every delivery from now on; shown only here.'),
    grace_expires_at: sentInstant.describe(
      'Until then the previous secret stays valid too (each delivery carries one `v1=` per valid secret).',
    ),
  }),
  "A webhook's new signing secret.",
);

/** A delivery's record of the receiver's answer. */
const deliveryResponse = z.object({
  status_code: z.int().describe("The receiver's HTTP status."),
  duration_ms: z.int().min(0),
  body_preview: z.string().describe("The first 1,024 bytes of the receiver's body, as text."),
});

/** The Webhook delivery resource (docs/webhooks.md "Delivery fields" and status transitions). */
export const WebhookDelivery = resource(
  'WebhookDelivery',
  z.object({
    id: z.string().describe('`whd_` + a ULID.'),
    webhook_id: z.string(),
    event_id: z.string().describe("The event's id (`Service-Event-Id`), shared by its retries and redeliveries."),
    event_type: z.enum(WEBHOOK_EVENT_TYPES),
    status: z
      .enum(DELIVERY_STATUSES)
      .describe('`succeeded` and `dead_lettered` are final; `failed` has a retry scheduled.'),
    attempt: z
      .int()
      .min(1)
      .max(MAX_ATTEMPTS)
      .describe('While `pending`, the attempt about to be made (1); otherwise the latest attempt made.'),
    next_attempt_at: nullableInstant.describe('When the next attempt is due; null once final.'),
    response: deliveryResponse.nullable().describe('The latest attempt’s response; null when none came.'),
    error: z.string().nullable().describe('Why the latest attempt failed; null after a success or before any.'),
    created_at: sentInstant,
    delivered_at: nullableInstant.describe('When an attempt succeeded; null otherwise.'),
    redelivery_of: z.string().nullable().describe('The delivery this redelivery repeats; null otherwise.'),
  }),
  'One event sent to one webhook: its attempt chain.',
);

/** A page of webhooks, newest first. */
export const WebhookPage = pageOf('WebhookPage', Webhook);
/** A page of a webhook's deliveries, newest first. */
export const WebhookDeliveryPage = pageOf('WebhookDeliveryPage', WebhookDelivery);
