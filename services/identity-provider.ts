/**
 * The identity-provider boundary: where organizations and memberships live for the issuer of the
 * session tokens. SaaS mode talks to the issuer's management API (identity-provider-oidc.ts); the
 * built-in local provider serves self-hosted installs (and SaaS without a management API): the
 * organization and its members are only our rows, so every operation succeeds locally.
 */
import { Errors } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { UserRole } from '../store/users.ts';

export interface ProviderMember {
  subject: string;
  email: string | null;
  role: UserRole;
}

export interface IdentityProvider {
  readonly kind: 'local' | 'oidc';
  /**
   * Creates the organization with `owner` as its owner; returns the provider's id for it, or null when
   * the organization is its own external id (the local provider).
   */
  createOrganization(input: { displayName: string; owner: ProviderMember }): Promise<{ externalId: string | null }>;
  /** Deletes the organization; an organization the provider no longer knows counts as deleted. */
  deleteOrganization(externalId: string): Promise<void>;
  /** Adds a member (invite accept); a member already there counts as added. */
  addMember(externalId: string, member: ProviderMember): Promise<void>;
  removeMember(externalId: string, subject: string): Promise<void>;
  setRole(externalId: string, subject: string, role: UserRole): Promise<void>;
}

/** The provider failed or could not be reached: nothing was changed here. */
export class IdentityProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IdentityProviderError';
  }
}

/**
 * Runs a provider call before any local write. A provider failure is logged (`what`, plus `context`)
 * and answered by `refusal` — 502 `identity_provider.upstream_failure` unless the caller names its
 * own — so the caller writes nothing and a retry is safe; any other error passes through.
 */
export async function inProvider<T>(
  logger: Logger,
  what: string,
  call: () => Promise<T>,
  refusal: () => Error = () => Errors.identityProviderFailure(what),
  context: Record<string, unknown> = {},
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof IdentityProviderError)) throw err;
    logger.warn({ err: err.message, ...context }, `identity provider failed while ${what}`);
    throw refusal();
  }
}

/** The built-in provider: organizations and members exist only as our rows. */
export class LocalIdentityProvider implements IdentityProvider {
  readonly kind = 'local';
  createOrganization(): Promise<{ externalId: string | null }> {
    return Promise.resolve({ externalId: null });
  }
  deleteOrganization(): Promise<void> {
    return Promise.resolve();
  }
  addMember(): Promise<void> {
    return Promise.resolve();
  }
  removeMember(): Promise<void> {
    return Promise.resolve();
  }
  setRole(): Promise<void> {
    return Promise.resolve();
  }
}
