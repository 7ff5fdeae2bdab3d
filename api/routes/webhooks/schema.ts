import { z } from 'zod';
import { ULID_BODY } from '../../../lib/ids.ts';
import {
  DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type CreateWebhookInput,
} from '../../../services/webhooks/subscriptions.ts';
import { instant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';

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
