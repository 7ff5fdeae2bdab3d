import type { Request } from 'express';
import { entries } from '../../../lib/error-catalogue.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateWebhookSecret,
  type WebhookDeps,
} from '../../../services/webhooks/subscriptions.ts';
import type { AppServices } from '../../context.ts';
import { emptyBody } from '../../fields.ts';
import { page, readIdCursor } from '../../pagination.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import type { Routes } from '../../route.ts';
import { presentCreatedWebhook, presentDelivery, presentSecretRotation, presentWebhook } from './presenter.ts';
import {
  createWebhookBody,
  deliveryIdParams,
  listDeliveriesQuery,
  listWebhooksQuery,
  rotateSecretBody,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
  webhookIdParams,
  WebhookPage,
  WebhookSecretRotation,
  WebhookWithSecret,
} from './schema.ts';

const LIST = 'webhooks';
const DELIVERIES = 'webhook_deliveries';

/**
 * Webhooks (docs/webhooks.md): create `POST /v1/webhooks` (201, the secret once), list
 * `GET /v1/webhooks`, get and delete `/v1/webhooks/{webhook_id}` (delete: 204), rotate
 * `POST /v1/webhooks/{webhook_id}:rotate-secret`, deliveries `GET /v1/webhooks/{webhook_id}/deliveries`,
 * redeliver `POST /v1/webhook-deliveries/{delivery_id}:redeliver` (202, a new attempt chain).
 */
export function webhookRoutes(routes: Routes, s: AppServices, deps: WebhookDeps): void {
  const actor = (req: Request) => ({ id: req.principal!.actor_id, requestId: req.id });

  routes.post('/v1/webhooks/:webhook_id\\:rotate-secret', {
    operationId: 'rotateWebhookSecret',
    access: 'webhooks:write',
    params: webhookIdParams,
    body: rotateSecretBody,
    responds: { status: 200, body: WebhookSecretRotation },
    errors: [entries.webhookNotFound],
    handler: async ({ req, res, principal, params, body }) => {
      const rotated = await rotateWebhookSecret(
        deps,
        principal.org_id,
        params.webhook_id,
        body.grace_seconds,
        actor(req),
      );
      res.json(presentSecretRotation(rotated));
    },
  });

  routes.get('/v1/webhooks/:webhook_id/deliveries', {
    operationId: 'listWebhookDeliveries',
    access: 'webhooks:read',
    params: webhookIdParams,
    query: listDeliveriesQuery,
    responds: { status: 200, body: WebhookDeliveryPage },
    errors: [entries.webhookNotFound, cursorProblem(DELIVERIES)],
    handler: async ({ res, principal, params, query }) => {
      const before = readIdCursor(s.cursors, DELIVERIES, principal.org_id, query.cursor);
      const { rows, more } = await listDeliveries(
        deps,
        principal.org_id,
        params.webhook_id,
        { status: query.status, since: query.since },
        before,
        query.limit,
      );
      res.json(page(s.cursors, DELIVERIES, principal.org_id, rows.map(presentDelivery), rows.at(-1)?.id, more));
    },
  });

  routes.post('/v1/webhook-deliveries/:delivery_id\\:redeliver', {
    operationId: 'redeliverWebhookDelivery',
    access: 'webhooks:write',
    params: deliveryIdParams,
    body: emptyBody,
    responds: { status: 202, body: WebhookDelivery, description: 'The new delivery (`pending`), queued.' },
    errors: [entries.webhookDeliveryNotFound, entries.webhookDeliveryInProgress],
    handler: async ({ req, res, principal, params }) => {
      res.status(202).json(presentDelivery(await redeliver(deps, principal.org_id, params.delivery_id, actor(req))));
    },
  });

  routes.get('/v1/webhooks/:webhook_id', {
    operationId: 'getWebhook',
    access: 'webhooks:read',
    params: webhookIdParams,
    responds: { status: 200, body: Webhook },
    errors: [entries.webhookNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentWebhook(await getWebhook(deps, principal.org_id, params.webhook_id)));
    },
  });

  routes.delete('/v1/webhooks/:webhook_id', {
    operationId: 'deleteWebhook',
    access: 'webhooks:write',
    params: webhookIdParams,
    responds: { status: 204, description: 'Deleted, with its deliveries (pending retries included).' },
    errors: [entries.webhookNotFound],
    handler: async ({ req, res, principal, params }) => {
      await deleteWebhook(deps, principal.org_id, params.webhook_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/webhooks', {
    operationId: 'listWebhooks',
    access: 'webhooks:read',
    query: listWebhooksQuery,
    responds: { status: 200, body: WebhookPage },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listWebhooks(deps, principal.org_id, before, query.limit);
      res.json(
        page(
          s.cursors,
          LIST,
          principal.org_id,
          rows.map((w) => presentWebhook(w)),
          rows.at(-1)?.id,
          more,
        ),
      );
    },
  });

  routes.post('/v1/webhooks', {
    operationId: 'createWebhook',
    access: 'webhooks:write',
    body: createWebhookBody,
    responds: { status: 201, body: WebhookWithSecret, headers: ['Location'] },
    errors: [entries.webhookUrlInvalid, entries.webhookUrlRefused, entries.webhookUrlUnresolvable],
    handler: async ({ req, res, principal, body }) => {
      const { webhook, secret } = await createWebhook(deps, principal.org_id, body, actor(req));
      res.status(201).location(`/v1/webhooks/${webhook.id}`).json(presentCreatedWebhook(webhook, secret));
    },
  });
}
