import type { RouteEntry } from './model.ts';
import { SURFACE, T0, T1 } from './samples.ts';

/** The audit log (api/routes/audit-events/): every filter, JSON or CSV. */
export const AUDIT_EVENT_ROUTES: readonly RouteEntry[] = [
  {
    method: 'GET',
    path: '/v1/audit-events',
    scope: 'audit:read',
    resource: 'audit_event',
    list: { limitMax: 10_000 },
    query: {
      kind: ['management', 'detection'],
      actor_id: ['ak_01M808QC4BEWC3KY6QSW94ETYF'],
      agent_id: ['agent-1'],
      surface: [SURFACE],
      action: ['blocked'],
      detector: ['pii'],
      resource_type: ['api_key', 'policy', 'webhook', 'organization', 'invite', 'user'],
      resource_id: ['pol_01M808QC4BEWC3KY6QSW94ETYF'],
      since: [T0],
      until: [T1],
    },
    queryRefs: [{ at: ['resource_id'], resource: 'policy' }],
    accepts: ['application/json', 'text/csv'],
  },
];
