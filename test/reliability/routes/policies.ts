import { pageQueryOnly, type RouteEntry } from './model.ts';
import { policyBody, SURFACE, T0, T1 } from './samples.ts';

/** Policies (api/routes/policies/): CRUD, simulate, backtest. */
export const POLICY_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/policies', scope: 'policies:read', resource: 'policy', list: pageQueryOnly },
  {
    method: 'POST',
    path: '/v1/policies',
    scope: 'policies:write',
    resource: 'policy',
    bodies: (ids) => [policyBody(ids.webhook)],
    bodyRefs: [{ at: ['rules', 0, 'then', 'notify', 0], resource: 'webhook' }],
  },
  { method: 'GET', path: '/v1/policies/{policy_id}', scope: 'policies:read', resource: 'policy' },
  {
    method: 'PUT',
    path: '/v1/policies/{policy_id}',
    scope: 'policies:write',
    resource: 'policy',
    bodies: (ids) => [policyBody(ids.webhook, 'replaced')],
    bodyRefs: [{ at: ['rules', 0, 'then', 'notify', 0], resource: 'webhook' }],
  },
  { method: 'DELETE', path: '/v1/policies/{policy_id}', scope: 'policies:write', resource: 'policy', consumes: true },
  {
    method: 'POST',
    path: '/v1/policies/{policy_id}:simulate',
    scope: 'policies:read',
    resource: 'policy',
    bodies: (ids) => [
      { scan_id: ids.scan },
      {
        surface: SURFACE,
        findings: [
          {
            detector: 'pii',
            score: 0.9,
            items: [{ label: 'US_SSN', confidence: 0.9, text: '536-22-1234', source: 'regex', span: [0, 11] }],
          },
        ],
        context: { agent_id: 'agent-1', session_id: 'sess-1', mcp_server: 'srv' },
        content_length: 42,
      },
    ],
    bodyRefs: [{ at: ['scan_id'], resource: 'scan' }],
  },
  {
    method: 'POST',
    path: '/v1/policies/{policy_id}:backtest',
    scope: 'policies:read',
    resource: 'policy',
    bodies: () => [{ since: T0, until: T1, samples: 2, max_scans: 1000 }],
  },
];
