import type { Request } from 'express';
import { parseIdParam } from '../../../lib/ids.ts';
import { backtestPolicy } from '../../../services/policies/backtest.ts';
import type { PolicyDeps } from '../../../services/policies/deps.ts';
import {
  createPolicy,
  deletePolicy,
  getPolicy,
  listPolicies,
  replacePolicy,
} from '../../../services/policies/manage.ts';
import { simulatePolicy } from '../../../services/policies/simulate.ts';
import type { AppServices } from '../../context.ts';
import { page, readIdCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentPolicy } from './presenter.ts';
import { backtestBody, listPoliciesQuery, policyBody, policyIdParams, simulateBody } from './schema.ts';

const LIST = 'policies';

/**
 * Policies (docs/policies.md): list `GET /v1/policies`, create `POST /v1/policies` (201), get
 * `GET /v1/policies/{policy_id}`, replace `PUT /v1/policies/{policy_id}`, delete
 * `DELETE /v1/policies/{policy_id}` (204), simulate `POST /v1/policies/{policy_id}:simulate`,
 * backtest `POST /v1/policies/{policy_id}:backtest`.
 */
export function policyRoutes(routes: Routes, s: AppServices, deps: PolicyDeps): void {
  const actor = (req: Request) => ({ id: req.principal!.actor_id, requestId: req.id });
  const body = policyBody(deps.catalog);
  const builtin = deps.catalog.thresholdsOf;

  routes.post('/v1/policies/:policy_id\\:simulate', {
    access: 'policies:read',
    params: policyIdParams,
    body: simulateBody(deps.catalog),
    handler: async ({ res, principal, params, body: b }) => {
      const scanId = b.scan_id === undefined ? undefined : parseIdParam('scan', b.scan_id, true)!;
      res.json(await simulatePolicy(deps, principal.org_id, params.policy_id, { ...b, scan_id: scanId }, builtin));
    },
  });

  routes.post('/v1/policies/:policy_id\\:backtest', {
    access: 'policies:read',
    params: policyIdParams,
    body: backtestBody,
    handler: async ({ res, principal, params, body: b }) => {
      res.json(await backtestPolicy(deps, principal.org_id, params.policy_id, b, builtin));
    },
  });

  routes.get('/v1/policies/:policy_id', {
    access: 'policies:read',
    params: policyIdParams,
    handler: async ({ res, principal, params }) => {
      res.json(presentPolicy(await getPolicy(s.db, principal.org_id, params.policy_id)));
    },
  });

  routes.put('/v1/policies/:policy_id', {
    access: 'policies:write',
    params: policyIdParams,
    body,
    handler: async ({ req, res, principal, params, body: b }) => {
      res.json(presentPolicy(await replacePolicy(deps, principal.org_id, params.policy_id, b, actor(req))));
    },
  });

  routes.delete('/v1/policies/:policy_id', {
    access: 'policies:write',
    params: policyIdParams,
    handler: async ({ req, res, principal, params }) => {
      await deletePolicy(deps, principal.org_id, params.policy_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/policies', {
    access: 'policies:read',
    query: listPoliciesQuery,
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listPolicies(s.db, principal.org_id, before, query.limit);
      res.json(page(s.cursors, LIST, principal.org_id, rows.map(presentPolicy), rows.at(-1)?.id, more));
    },
  });

  routes.post('/v1/policies', {
    access: 'policies:write',
    body,
    handler: async ({ req, res, principal, body: b }) => {
      const row = await createPolicy(deps, principal.org_id, b, actor(req));
      res.status(201).location(`/v1/policies/${row.id}`).json(presentPolicy(row));
    },
  });
}
