import type { Clock } from '../lib/clock.ts';
import { Errors, type ProblemError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { findKeyBySecretHash, touchLastUsed, type KeyLookupRow } from '../store/api-keys.ts';
import type { Db } from '../store/db.ts';
import { hashSecret, looksLikeSecret } from './api-key-secrets.ts';
import type { Principal, SessionIdentity } from './principal.ts';
import { cacheTtlMs, type InvalidationBus } from './invalidation-bus.ts';
import { resolveMembership, type SessionMembership } from './session-principals.ts';
import { looksLikeJwt, ROLE_SCOPES, SsoTokenError, type SsoClaims, type SsoVerifier } from './sso-tokens.ts';

interface CacheEntry {
  key: KeyLookupRow | null;
  /** When it was looked up: its age is checked against the TTL of the moment it is read. */
  at: number;
}

export interface AuthenticatorOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  hashKey: Buffer;
  revocations: InvalidationBus;
  cacheTtlMs: number;
  deploymentMode: 'self_hosted' | 'saas';
  /** SSO session tokens are accepted when set (OIDC_ISSUER). */
  sso?: SsoVerifier | null;
  maxEntries?: number;
}

/** A bearer credential resolved: an organization principal, and for an SSO token its session. */
export interface Identified {
  /** Null for a session that belongs to no organization (yet, or any more). */
  principal: Principal | null;
  session: SessionIdentity | null;
  /** Why `principal` is null: the refusal scoped routes raise. */
  refusal?: ProblemError;
}

interface MembershipEntry {
  membership: SessionMembership;
  at: number;
}

const ORGLESS_DETAIL: Record<Exclude<SessionMembership, { kind: 'member' }>['reason'], string> = {
  no_org_claim:
    'The session token names no organization: create one (POST /v1/organizations) or accept an invite, then sign in again.',
  unknown_org: 'The organization named by the session token is not known to this deployment.',
  deleted_org: 'The organization named by the session token was deleted.',
  removed: 'The signed-in user is no longer a member of the organization named by the session token.',
};

const SSO_FAILURE_DETAIL: Record<SsoTokenError['reason'], string> = {
  malformed: 'The session token could not be parsed.',
  expired: 'The session token has expired; sign in again.',
  signature: 'The session token signature is not valid.',
  claims: 'The session token was not issued for this service or lacks a required claim.',
  issuer_unreachable: 'The session token issuer could not be reached.',
};

const LAST_USED_EVERY_MS = 60_000;

/**
 * Turns a bearer secret into a Principal. Lookups (hits and misses) are cached for `cacheTtlMs`,
 * keyed by the secret's hash; revocations published on the bus drop entries at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly memberships = new Map<string, MembershipEntry>();
  private readonly maxEntries: number;

  constructor(private readonly o: AuthenticatorOptions) {
    this.maxEntries = o.maxEntries ?? 50_000;
    o.revocations.subscribe((keyId) => this.forget(keyId));
  }

  /**
   * Resolves a bearer credential: an API key, or an SSO session token when an issuer is configured.
   * @throws ProblemError 401 for a refused credential, 503 `auth.issuer_unreachable` when the issuer
   * cannot be reached to verify a token.
   */
  async identify(bearer: string): Promise<Identified> {
    if (!looksLikeJwt(bearer)) return { principal: await this.authenticate(bearer), session: null };
    if (!this.o.sso) {
      throw Errors.unauthenticated('SSO session tokens are not accepted here (no OIDC issuer is configured).');
    }
    const claims = await this.verify(this.o.sso, bearer);
    const session: SessionIdentity = { subject: claims.subject, email: claims.email, externalOrgId: claims.orgId };
    const membership = await this.membership(claims);
    if (membership.kind === 'none') {
      return { principal: null, session, refusal: Errors.unauthenticated(ORGLESS_DETAIL[membership.reason]) };
    }
    const { org, user } = membership;
    return {
      session,
      principal: {
        type: 'user',
        org_id: org.id,
        org_display_name: org.display_name,
        actor_id: user.id,
        scopes: [...ROLE_SCOPES[user.role]],
        deployment_mode: this.o.deploymentMode,
        environment: 'live',
        role: user.role,
      },
    };
  }

  private async verify(verifier: SsoVerifier, token: string): Promise<SsoClaims> {
    try {
      return await verifier.verify(token);
    } catch (err) {
      if (!(err instanceof SsoTokenError)) throw err;
      if (err.reason === 'issuer_unreachable') {
        this.o.logger.warn({ reason: err.message }, 'SSO issuer unreachable');
        throw Errors.ssoIssuerUnreachable();
      }
      throw Errors.unauthenticated(SSO_FAILURE_DETAIL[err.reason]);
    }
  }

  /** The session's organization membership, cached like key lookups and dropped when the user changes. */
  private async membership(claims: SsoClaims): Promise<SessionMembership> {
    if (!claims.orgId) return { kind: 'none', reason: 'no_org_claim' };
    const cacheKey = `${claims.subject}\n${claims.orgId}`;
    const nowMs = this.o.clock.now().getTime();
    const cached = this.memberships.get(cacheKey);
    if (cached && nowMs - cached.at < this.ttlMs()) return cached.membership;
    const membership = await resolveMembership(
      { db: this.o.db, clock: this.o.clock, provisionOrganizations: this.o.deploymentMode === 'saas' },
      claims,
    );
    if (this.o.cacheTtlMs > 0) {
      if (this.memberships.size >= this.maxEntries) this.memberships.clear();
      this.memberships.set(cacheKey, { membership, at: nowMs });
    }
    return membership;
  }

  /**
   * Resolves a bearer secret to a Principal.
   * @throws ProblemError 401 auth.unauthenticated, auth.api_key.expired or auth.api_key.revoked.
   */
  async authenticate(secret: string): Promise<Principal> {
    if (!looksLikeSecret(secret)) throw Errors.unauthenticated('The bearer credential is not a valid API key.');
    const hash = hashSecret(this.o.hashKey, secret);
    const cacheKey = hash.toString('base64');
    const nowMs = this.o.clock.now().getTime();
    let entry = this.cache.get(cacheKey);
    // The TTL is that of now, not of when the entry was stored: an entry cached while revocations
    // arrived over the bus (30 s) must not outlive 1 s once they cannot (Redis went away since).
    if (!entry || nowMs - entry.at >= this.ttlMs()) {
      entry = { key: await findKeyBySecretHash(this.o.db, hash), at: nowMs };
      this.remember(cacheKey, entry);
    }
    const key = entry.key;
    if (!key) throw Errors.unauthenticated('The API key is not valid.');
    if (key.revoked_at) throw Errors.apiKeyRevoked();
    if (key.expires_at && key.expires_at.getTime() <= nowMs) throw Errors.apiKeyExpired();
    this.noteUse(key, nowMs);
    return {
      type: 'api_key',
      org_id: key.org_id,
      org_display_name: key.org_display_name,
      actor_id: key.id,
      scopes: key.scopes,
      deployment_mode: this.o.deploymentMode,
      environment: key.environment,
    };
  }

  private ttlMs(): number {
    return cacheTtlMs(this.o.revocations, this.o.cacheTtlMs);
  }

  /**
   * Drops cached entries for one API key, user or organization id (null: all): published on the
   * revocations bus by key revocations, member removals and role changes, organization deletions.
   */
  forget(id: string | null): void {
    if (id === null) {
      this.cache.clear();
      this.memberships.clear();
      return;
    }
    for (const [k, v] of this.cache) if (v.key?.id === id || v.key?.org_id === id) this.cache.delete(k);
    for (const [k, v] of this.memberships) {
      const m = v.membership;
      if (m.kind === 'member' && (m.user.id === id || m.org.id === id)) this.memberships.delete(k);
      // an organization-less answer may be stale after an invite accept or an organization create
      if (m.kind === 'none') this.memberships.delete(k);
    }
  }

  private remember(cacheKey: string, entry: CacheEntry): void {
    if (this.o.cacheTtlMs <= 0) return;
    this.cache.delete(cacheKey);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(cacheKey, entry);
  }

  /** Writes `last_used_at` at most once a minute per key per process, off the request path. */
  private noteUse(key: KeyLookupRow, nowMs: number): void {
    const last = this.lastUsedWritten.get(key.id) ?? 0;
    if (nowMs - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(key.id, nowMs);
    if (this.lastUsedWritten.size > this.maxEntries) this.lastUsedWritten.clear();
    touchLastUsed(this.o.db, key.org_id, key.id, new Date(nowMs)).catch((err: Error) =>
      this.o.logger.warn({ err: err.message, key_id: key.id }, 'could not record api key use'),
    );
  }
}
