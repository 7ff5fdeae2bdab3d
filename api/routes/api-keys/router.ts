import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../../../services/api-keys.ts';
import type { AppServices } from '../../context.ts';
import { emptyBody } from '../../fields.ts';
import { page, readIdCursor } from '../../pagination.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import type { Routes } from '../../route.ts';
import { presentApiKey } from './presenter.ts';
import {
  apiKeyIdParams,
  apiKeyPageSchema,
  apiKeySchema,
  apiKeyWithSecretSchema,
  createApiKeyBody,
  listApiKeysQuery,
} from './schema.ts';

const LIST = 'api_keys';

/**
 * API keys: create `POST /v1/api-keys`, list `GET /v1/api-keys`, get `GET /v1/api-keys/{id}`,
 * revoke `POST /v1/api-keys/{id}:revoke` (204), rotate `POST /v1/api-keys/{id}:rotate` (201).
 */
export function apiKeyRoutes(routes: Routes, s: AppServices): void {
  const actor = (req: import('express').Request) => ({
    id: req.principal!.actor_id,
    requestId: req.id,
    scopes: req.principal!.scopes,
  });

  routes.post('/v1/api-keys/:api_key_id\\:rotate', {
    operationId: 'rotateApiKey',
    access: 'api_keys:write',
    params: apiKeyIdParams,
    body: emptyBody,
    responds: { status: 201, body: apiKeyWithSecretSchema, headers: ['Location'], description: 'The successor key.' },
    errors: [entries.apiKeyNotFound, entries.apiKeyScopeEscalation, entries.apiKeyAlreadyRevoked],
    handler: async ({ req, res, principal, params }) => {
      const { key, secret } = await rotateApiKey(s.apiKeys, principal.org_id, params.api_key_id, actor(req));
      res.status(201).location(`/v1/api-keys/${key.id}`).json(presentApiKey(key, secret));
    },
  });

  routes.post('/v1/api-keys/:api_key_id\\:revoke', {
    operationId: 'revokeApiKey',
    access: 'api_keys:write',
    params: apiKeyIdParams,
    body: emptyBody,
    responds: { status: 204, description: 'Revoked (also when it already was).' },
    errors: [entries.apiKeyNotFound, entries.apiKeyScopeEscalation],
    handler: async ({ req, res, principal, params }) => {
      await revokeApiKey(s.apiKeys, principal.org_id, params.api_key_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/api-keys/:api_key_id', {
    operationId: 'getApiKey',
    access: 'api_keys:read',
    params: apiKeyIdParams,
    responds: { status: 200, body: apiKeySchema },
    errors: [entries.apiKeyNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentApiKey(await getApiKey(s.apiKeys, principal.org_id, params.api_key_id)));
    },
  });

  routes.get('/v1/api-keys', {
    operationId: 'listApiKeys',
    access: 'api_keys:read',
    query: listApiKeysQuery,
    responds: { status: 200, body: apiKeyPageSchema },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listApiKeys(s.apiKeys, principal.org_id, before, query.limit);
      res.json(
        page(
          s.cursors,
          LIST,
          principal.org_id,
          rows.map((k) => presentApiKey(k)),
          rows.at(-1)?.id,
          more,
        ),
      );
    },
  });

  routes.post('/v1/api-keys', {
    operationId: 'createApiKey',
    access: 'api_keys:write',
    body: createApiKeyBody,
    responds: { status: 201, body: apiKeyWithSecretSchema, headers: ['Location'] },
    errors: [entries.apiKeyScopeEscalation],
    handler: async ({ req, res, principal, body }) => {
      const { key, secret } = await createApiKey(s.apiKeys, principal.org_id, body, actor(req));
      res.status(201).location(`/v1/api-keys/${key.id}`).json(presentApiKey(key, secret));
    },
  });
}
