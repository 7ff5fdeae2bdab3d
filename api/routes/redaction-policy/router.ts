import { getRedactionPolicy, replaceRedactionPolicy } from '../../../services/redaction/policy.ts';
import type { AppServices } from '../../context.ts';
import type { Routes } from '../../route.ts';
import { presentRedactionPolicy } from './presenter.ts';
import { RedactionPolicy, replaceRedactionPolicyBody } from './schema.ts';

const PATH = '/v1/org/redaction-policy';

/**
 * The organization's redaction policy (docs/api.md): read `GET` by any organization principal (no
 * scope), replace `PUT` (admin) — a new version each time, unless the body equals the one in force.
 */
export function redactionPolicyRoutes(routes: Routes, s: AppServices): void {
  routes.get(PATH, {
    operationId: 'getRedactionPolicy',
    access: 'authenticated',
    responds: { status: 200, body: RedactionPolicy, description: 'The policy in force, or the built-in default.' },
    handler: async ({ res, principal }) => {
      res.json(presentRedactionPolicy(await getRedactionPolicy(s.redaction, principal.org_id)));
    },
  });

  routes.put(PATH, {
    operationId: 'replaceRedactionPolicy',
    access: 'admin',
    body: replaceRedactionPolicyBody,
    responds: {
      status: 200,
      body: RedactionPolicy,
      description: 'The policy now in force: a new version, or the current one unchanged when the body equals it.',
    },
    handler: async ({ req, res, principal, body }) => {
      const { policy } = await replaceRedactionPolicy(s.redaction, principal.org_id, body, {
        id: principal.actor_id,
        requestId: req.id,
      });
      res.json(presentRedactionPolicy(policy));
    },
  });
}
