import type { z } from 'zod';
import type { Scope } from '../../../lib/scopes.ts';
import type { Principal, SessionIdentity } from '../../../services/principal.ts';
import type { principalSchema } from './schema.ts';

type Me = z.output<typeof principalSchema>;

/** The caller of an organization: an API key, or a member (with their role and session email). */
export function presentPrincipal(p: Principal, session: SessionIdentity | undefined): Me {
  const me: Me = {
    type: p.type,
    org_id: p.org_id,
    org_display_name: p.org_display_name,
    actor_id: p.actor_id,
    // A key's scopes were checked against SCOPES when it was made; a member's are their role's.
    scopes: p.scopes as Scope[],
    deployment_mode: p.deployment_mode,
  };
  if (p.type === 'user') {
    me.role = p.role;
    me.email = session?.email ?? null;
  }
  return me;
}

/** An SSO session of no organization: no scopes, nothing to act in yet. */
export function presentSessionWithoutOrganization(
  session: SessionIdentity | undefined,
  deploymentMode: Me['deployment_mode'],
): Me {
  return {
    type: 'user',
    org_id: null,
    org_display_name: null,
    actor_id: null,
    scopes: [],
    deployment_mode: deploymentMode,
    email: session?.email ?? null,
  };
}
