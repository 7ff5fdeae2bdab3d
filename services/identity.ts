/**
 * What the organization, member and invite use cases share (IdentityDeps), and how a process builds
 * its session-token verifier and identity provider from the configuration (docs/identity.md).
 */
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Db } from '../store/db.ts';
import { LocalIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { OidcIdentityProvider } from './identity-provider-oidc.ts';
import type { InvalidationBus } from './invalidation-bus.ts';
import type { InviteMailer } from './invite-mail.ts';
import { createSsoVerifier, type SsoVerifier } from './sso-tokens.ts';

export interface IdentityDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  provider: IdentityProvider;
  /** Member removals, role changes and organization deletions are published here (the authenticator's caches). */
  revocations: InvalidationBus;
  deploymentMode: 'self_hosted' | 'saas';
  inviteTtlHours: number;
  /** Base of invite accept URLs, without a trailing slash. */
  publicUrl: string;
  /** Sends invite emails when SMTP is configured. */
  mailer: InviteMailer | null;
  /** Records of POST /v1/organizations with Idempotency-Key are kept this long. */
  idempotencyTtlHours: number;
  /** Deletes an organization's files outside the database (evidence uploads) when it is deleted. */
  removeOrgFiles?: (orgId: string) => Promise<void>;
}

/** The verifier of SSO session tokens, or null when no issuer is configured (API keys only). */
export function ssoVerifierFromConfig(config: Readonly<Config>, clock?: Clock): SsoVerifier | null {
  if (!config.OIDC_ISSUER || !config.OIDC_AUDIENCE) return null;
  return createSsoVerifier({
    issuer: config.OIDC_ISSUER,
    audience: config.OIDC_AUDIENCE,
    clockToleranceSeconds: config.OIDC_CLOCK_TOLERANCE_SECONDS,
    fetchTimeoutMs: config.OIDC_FETCH_TIMEOUT_MS,
    clock,
  });
}

/** The issuer's management API in SaaS mode when configured; the built-in local provider otherwise. */
export function identityProviderFromConfig(config: Readonly<Config>): IdentityProvider {
  if (config.IDP_MANAGEMENT_URL && config.IDP_CLIENT_ID && config.IDP_CLIENT_SECRET && config.OIDC_ISSUER) {
    return new OidcIdentityProvider({
      issuer: config.OIDC_ISSUER,
      managementUrl: config.IDP_MANAGEMENT_URL,
      clientId: config.IDP_CLIENT_ID,
      clientSecret: config.IDP_CLIENT_SECRET,
      scope: config.IDP_SCOPE,
      timeoutMs: config.OIDC_FETCH_TIMEOUT_MS,
    });
  }
  return new LocalIdentityProvider();
}

/** Where invite accept URLs point: PUBLIC_URL, or this process on localhost. */
export function publicUrlFromConfig(config: Readonly<Config>): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
}
