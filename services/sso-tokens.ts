/**
 * SSO session JWTs, the dashboard's credential (issue 19; docs/decisions/0007-sso-session-tokens.md):
 * verified against one configured OIDC issuer with `jose`. Discovery is fetched lazily and cached;
 * the issuer's keys come from its `jwks_uri`, cached and refetched when a token names an unknown
 * `kid` (at most once per cooldown). Only verification lives here: the authenticator
 * (services/authenticator.ts) maps an `SsoTokenError` to 401 `auth.unauthenticated`, and
 * `issuer_unreachable` to 503 `auth.issuer_unreachable`.
 */
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
  type JWTPayload,
} from 'jose';
import { systemClock, type Clock } from '../lib/clock.ts';
import { SCOPES, type Scope } from '../lib/scopes.ts';
import { USER_ROLES, type UserRole } from '../store/users.ts';

/** Asymmetric signatures only: `none` and the HS* family (a shared secret) are refused. */
export const SSO_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** The claims read from a session token; a deployment whose issuer names them otherwise maps them here. */
export const SSO_CLAIMS = {
  subject: 'sub',
  email: 'email',
  emailVerified: 'email_verified',
  orgId: 'org_id',
  /** Optional: the organization's display name, used when its local row is provisioned. */
  orgName: 'org_name',
  role: 'role',
} as const;

/** Longest subject or organization id accepted (both are stored and compared). */
const MAX_ID_CLAIM = 255;

/** The roles a token may name: those of a user row. */
export const SSO_ROLES = USER_ROLES;
export type SsoRole = UserRole;

/**
 * Role → scopes. Owners and admins hold every scope (`admin` among them, which implies any scope
 * added later); they differ only in what issue 19's organization routes let them do (only an owner
 * deletes the organization; the last owner cannot be demoted). A member reads everything the
 * organization has (every `:read` scope) and runs scans (`scans:write`), but changes no
 * configuration: no policy, webhook, API key, labeled-event or red-team writes, no `mcp:invoke`.
 */
export const ROLE_SCOPES: Readonly<Record<SsoRole, readonly Scope[]>> = Object.freeze({
  owner: Object.freeze([...SCOPES]),
  admin: Object.freeze([...SCOPES]),
  member: Object.freeze([
    'scans:read',
    'scans:write',
    'policies:read',
    'webhooks:read',
    'api_keys:read',
    'audit:read',
    'analytics:read',
    'labeled_events:read',
    'redteam:read',
  ] as const),
});

/** What a verified session token says about its bearer. */
export interface SsoClaims {
  subject: string;
  /** Null when the token has no email, or says it is unverified (`email_verified: false`). */
  email: string | null;
  /** Null for a user who has no organization yet (the organization-create flow). */
  orgId: string | null;
  /** The `org_name` claim (at most 160 characters kept), null when absent. */
  orgName: string | null;
  /** Null when absent or not one of SSO_ROLES. */
  role: SsoRole | null;
}

export type SsoTokenFailure = 'malformed' | 'expired' | 'signature' | 'claims' | 'issuer_unreachable';

/**
 * Why a session token was refused. Messages are fixed texts (a claim's name at most), never token
 * contents, and no cause that carries the payload is attached: they are safe to log.
 */
export class SsoTokenError extends Error {
  constructor(
    readonly reason: SsoTokenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SsoTokenError';
  }
}

export interface SsoVerifierOptions {
  /** The issuer identifier, exactly as the tokens' `iss` and the discovery document's `issuer` say. */
  issuer: string;
  /** The `aud` our tokens carry (this service's identifier at the issuer). */
  audience: string;
  clockToleranceSeconds?: number;
  /** Bound on each request to the issuer (discovery, JWKS). */
  fetchTimeoutMs: number;
  clock?: Clock;
  /** After a JWKS fetch, how long an unknown `kid` waits before it may trigger another (jose's default). */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before they are fetched again (jose's default). */
  jwksCacheMaxAgeMs?: number;
}

export interface SsoVerifier {
  /**
   * Verifies a session token and reads its claims.
   * @throws SsoTokenError — every failure, with its reason.
   */
  verify(token: string): Promise<SsoClaims>;
}

/** Longer bearers are refused before any parsing. */
const MAX_TOKEN_LENGTH = 16_384;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Whether a bearer credential has the shape of a signed JWT (three non-empty base64url segments), so
 * the authenticator can route it here rather than to the API keys (`sk_live_…`, `sk_test_…`).
 */
export function looksLikeJwt(bearer: string): boolean {
  return bearer.length <= MAX_TOKEN_LENGTH && JWT_SHAPE.test(bearer);
}

type KeyGetter = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

interface Discovered {
  keys: KeyGetter;
}

/** A verifier for one issuer and audience; it fetches nothing until its first token. */
export function createSsoVerifier(options: SsoVerifierOptions): SsoVerifier {
  const clock = options.clock ?? systemClock;
  const tolerance = options.clockToleranceSeconds ?? 60;
  let discovered: Promise<Discovered> | null = null;

  // One discovery at a time; a failed one is forgotten, so the next token tries again.
  const discover = (): Promise<Discovered> => {
    discovered ??= fetchDiscovery(options).catch((err: unknown) => {
      discovered = null;
      throw err;
    });
    return discovered;
  };

  return {
    async verify(token) {
      checkHeader(token);
      const { keys } = await discover();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...SSO_ALGORITHMS],
          clockTolerance: tolerance,
          currentDate: clock.now(),
          requiredClaims: ['exp', SSO_CLAIMS.subject],
        }));
      } catch (err) {
        throw toSsoError(err);
      }
      const nowSeconds = clock.now().getTime() / 1000;
      // jose checks `iat` only against a maximum age; a token issued in the future is refused here.
      if (typeof payload.iat === 'number' && payload.iat > nowSeconds + tolerance) {
        throw new SsoTokenError('claims', 'The SSO token claim "iat" is in the future.');
      }
      return readClaims(payload);
    },
  };
}

/** Refuses what needs no key, before anything is fetched from the issuer. */
function checkHeader(token: string): void {
  if (!looksLikeJwt(token)) throw new SsoTokenError('malformed', 'The bearer credential is not a signed JWT.');
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(token));
  } catch {
    throw new SsoTokenError('malformed', 'The SSO token header could not be parsed.');
  }
  if (!SSO_ALGORITHMS.some((a) => a === alg)) {
    throw new SsoTokenError('signature', 'The SSO token is not signed with an accepted algorithm.');
  }
}

async function fetchDiscovery(options: SsoVerifierOptions): Promise<Discovered> {
  const url = `${options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let document: unknown;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.fetchTimeoutMs),
    });
    if (response.status !== 200) throw new Error(`discovery answered HTTP ${response.status}`);
    document = await response.json();
  } catch (err) {
    throw new SsoTokenError('issuer_unreachable', 'The SSO issuer could not be reached for discovery.', {
      cause: err,
    });
  }
  const { issuer, jwks_uri: jwksUri } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  // OIDC Discovery §4.3: the document's issuer must be the configured one, character for character.
  if (issuer !== options.issuer) {
    throw new SsoTokenError('issuer_unreachable', 'The SSO discovery document names another issuer.');
  }
  if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri) || !URL.canParse(jwksUri)) {
    throw new SsoTokenError('issuer_unreachable', 'The SSO discovery document has no usable jwks_uri.');
  }
  const remote = createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: options.fetchTimeoutMs,
    cooldownDuration: options.jwksCooldownMs,
    cacheMaxAge: options.jwksCacheMaxAgeMs,
  });
  return {
    keys: async (header, token) => {
      try {
        return await remote(header, token);
      } catch (err) {
        // No key for this token (after the refetch jose allows) is the token's fault; jose iterates
        // several candidate keys itself. Anything else — network, timeout, a non-200, a JWKS that
        // is not one — is the issuer's.
        if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys) {
          throw err;
        }
        throw new SsoTokenError('issuer_unreachable', "The SSO issuer's keys could not be fetched.", { cause: err });
      }
    },
  };
}

/** jose's failures → our reasons. jose's claim errors carry the payload, so none is kept as a cause. */
function toSsoError(err: unknown): SsoTokenError {
  if (err instanceof SsoTokenError) return err;
  if (err instanceof joseErrors.JWTExpired) return new SsoTokenError('expired', 'The SSO token has expired.');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    const what = err.reason === 'missing' ? 'is missing' : 'was not accepted';
    return new SsoTokenError('claims', `The SSO token claim "${err.claim}" ${what}.`);
  }
  if (
    err instanceof joseErrors.JWSSignatureVerificationFailed ||
    err instanceof joseErrors.JWKSNoMatchingKey ||
    err instanceof joseErrors.JOSEAlgNotAllowed ||
    err instanceof joseErrors.JOSENotSupported
  ) {
    return new SsoTokenError('signature', 'The SSO token signature is not valid for this issuer.');
  }
  return new SsoTokenError('malformed', 'The SSO token could not be parsed.');
}

function readClaims(payload: JWTPayload): SsoClaims {
  const subject = payload[SSO_CLAIMS.subject];
  if (typeof subject !== 'string' || subject === '' || subject.length > MAX_ID_CLAIM) {
    throw new SsoTokenError('claims', `The SSO token claim "${SSO_CLAIMS.subject}" was not accepted.`);
  }
  const email = payload[SSO_CLAIMS.email];
  const role = payload[SSO_CLAIMS.role];
  const orgId = payload[SSO_CLAIMS.orgId];
  if (typeof orgId === 'string' && orgId.length > MAX_ID_CLAIM) {
    throw new SsoTokenError('claims', `The SSO token claim "${SSO_CLAIMS.orgId}" was not accepted.`);
  }
  const orgName = payload[SSO_CLAIMS.orgName];
  const emailOk = typeof email === 'string' && email !== '' && email.length <= 320;
  return {
    subject,
    email: emailOk && payload[SSO_CLAIMS.emailVerified] !== false ? email : null,
    orgId: typeof orgId === 'string' && orgId !== '' ? orgId : null,
    orgName: typeof orgName === 'string' && orgName.trim() !== '' ? orgName.trim().slice(0, 160) : null,
    role: SSO_ROLES.find((r) => r === role) ?? null,
  };
}
