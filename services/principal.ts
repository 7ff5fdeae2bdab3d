import type { SsoRole } from './sso-tokens.ts';

/** Who is calling, within an organization: the identity endpoint's Principal. */
export interface Principal {
  /** `api_key`: a scoped API key. `user`: a member signed in with an SSO session token. */
  type: 'api_key' | 'user';
  org_id: string;
  org_display_name: string;
  /** The API key id (`ak_…`), or the user id (`usr_…`). */
  actor_id: string;
  scopes: string[];
  deployment_mode: 'self_hosted' | 'saas';
  /** The key's environment (`live` or `test`); a user acts in `live`. */
  environment: 'live' | 'test';
  /** User principals: the member's role in this organization (the local row's, which role changes update). */
  role?: SsoRole;
}

/**
 * A verified SSO session token, with or without an organization: what the organization-less
 * operations (organization create, invite accept, the identity endpoint) need of their caller.
 */
export interface SessionIdentity {
  /** The token's `sub`. */
  subject: string;
  /** Null when the token carries no (verified) email. */
  email: string | null;
  /** The identity provider's organization id (the `org_id` claim); null for an organization-less user. */
  externalOrgId: string | null;
}
