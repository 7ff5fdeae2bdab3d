import type { Request } from 'express';
import type { z } from 'zod';
import { entries } from '../../../lib/error-catalogue.ts';
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
import { cursorProblem } from '../../openapi/problems.ts';
import { page, readIdCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentPolicy, presentSimulation } from './presenter.ts';
import { Policy, PolicyBacktest, PolicyPage, PolicySimulation } from './responses.ts';
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
    operationId: 'simulatePolicy',
    access: 'policies:read',
    params: policyIdParams,
    body: simulateBody(deps.catalog),
    responds: { status: 200, body: PolicySimulation },
    errors: [entries.policyNotFound, entries.scanNotFound],
    handler: async ({ res, principal, params, body: b }) => {
      const scanId = b.scan_id === undefined ? undefined : parseIdParam('scan', b.scan_id, true)!;
      const input = { ...b, scan_id: scanId };
      res.json(presentSimulation(await simulatePolicy(deps, principal.org_id, params.policy_id, input, builtin)));
    },
  });

  routes.post('/v1/policies/:policy_id\\:backtest', {
    operationId: 'backtestPolicy',
    access: 'policies:read',
    params: policyIdParams,
    body: backtestBody,
    responds: { status: 200, body: PolicyBacktest },
    errors: [entries.policyNotFound],
    handler: async ({ res, principal, params, body: b }) => {
      const backtest = await backtestPolicy(deps, principal.org_id, params.policy_id, b, builtin);
      res.json(backtest satisfies z.output<typeof PolicyBacktest>);
    },
  });

  routes.get('/v1/policies/:policy_id', {
    operationId: 'getPolicy',
    access: 'policies:read',
    params: policyIdParams,
    responds: { status: 200, body: Policy },
    errors: [entries.policyNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentPolicy(await getPolicy(s.db, principal.org_id, params.policy_id)));
    },
  });

  routes.put('/v1/policies/:policy_id', {
    operationId: 'replacePolicy',
    access: 'policies:write',
    params: policyIdParams,
    body,
    responds: { status: 200, body: Policy },
    errors: [entries.policyNotFound],
    handler: async ({ req, res, principal, params, body: b }) => {
      res.json(presentPolicy(await replacePolicy(deps, principal.org_id, params.policy_id, b, actor(req))));
    },
  });

  routes.delete('/v1/policies/:policy_id', {
    operationId: 'deletePolicy',
    access: 'policies:write',
    params: policyIdParams,
    responds: { status: 204, description: 'Deleted.' },
    errors: [entries.policyNotFound],
    handler: async ({ req, res, principal, params }) => {
      await deletePolicy(deps, principal.org_id, params.policy_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/policies', {
    operationId: 'listPolicies',
    access: 'policies:read',
    query: listPoliciesQuery,
    responds: { status: 200, body: PolicyPage },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listPolicies(s.db, principal.org_id, before, query.limit);
      res.json(page(s.cursors, LIST, principal.org_id, rows.map(presentPolicy), rows.at(-1)?.id, more));
    },
  });

  routes.post('/v1/policies', {
    operationId: 'createPolicy',
    access: 'policies:write',
    body,
    responds: { status: 201, body: Policy, headers: ['Location'] },
    handler: async ({ req, res, principal, body: b }) => {
      const row = await createPolicy(deps, principal.org_id, b, actor(req));
      res.status(201).location(`/v1/policies/${row.id}`).json(presentPolicy(row));
    },
  });
}
