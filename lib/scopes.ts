/** The 17 API key scopes of the spec. `admin` implies every other scope. */
export const SCOPES = [
  'scans:read',
  'scans:write',
  'policies:read',
  'policies:write',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:write',
  'audit:read',
  'analytics:read',
  'labeled_events:read',
  'labeled_events:write',
  'labeled_events:delete',
  'redteam:read',
  'redteam:write',
  'mcp:invoke',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Whether a principal holding `held` may perform an operation that needs `needed`. */
export function hasScope(held: readonly string[], needed: Scope): boolean {
  return held.includes('admin') || held.includes(needed);
}
