import { pageQueryOnly, type RouteEntry } from './model.ts';
import { RECEIVER_URL_PLACEHOLDER, T0 } from './samples.ts';

/** Webhooks and their deliveries (api/routes/webhooks/); bodies need the receiver's URL: the fixture fills `url`. */
export const WEBHOOK_ROUTES: readonly RouteEntry[] = [
  {
    method: 'POST',
    path: '/v1/webhooks',
    scope: 'webhooks:write',
    resource: 'webhook',
    bodies: () => [
      {
        url: RECEIVER_URL_PLACEHOLDER,
        events: ['webhook.failing'],
        description: 'reliability',
        include_content: false,
      },
    ],
  },
  { method: 'GET', path: '/v1/webhooks', scope: 'webhooks:read', resource: 'webhook', list: pageQueryOnly },
  { method: 'GET', path: '/v1/webhooks/{webhook_id}', scope: 'webhooks:read', resource: 'webhook' },
  { method: 'DELETE', path: '/v1/webhooks/{webhook_id}', scope: 'webhooks:write', resource: 'webhook', consumes: true },
  {
    method: 'POST',
    path: '/v1/webhooks/{webhook_id}:rotate-secret',
    scope: 'webhooks:write',
    resource: 'webhook',
    bodies: () => [{ grace_seconds: 60 }, {}],
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{webhook_id}/deliveries',
    scope: 'webhooks:read',
    resource: 'webhook_delivery',
    list: pageQueryOnly,
    query: { status: ['succeeded', 'pending'], since: [T0] },
  },
  {
    method: 'POST',
    path: '/v1/webhook-deliveries/{delivery_id}:redeliver',
    scope: 'webhooks:write',
    resource: 'webhook_delivery',
    bodies: () => [{}],
  },
];
