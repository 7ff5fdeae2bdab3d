/**
 * The error catalogue: every error the API returns, with its HTTP status, stable dot-namespaced code
 * and title. `docs/errors.md` lists the same codes (a unit test keeps the two in step).
 */
export interface ValidationIssue {
  path: string;
  message: string;
}

export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
  }
}

interface Entry {
  status: number;
  code: string;
  title: string;
}

const entries = {
  // request shape
  routeNotFound: { status: 404, code: 'request.route_not_found', title: 'No such route' },
  methodNotAllowed: { status: 405, code: 'request.method_not_allowed', title: 'Method not allowed' },
  invalidJson: { status: 400, code: 'request.invalid_json', title: 'Malformed JSON body' },
  unsupportedMediaType: { status: 415, code: 'request.unsupported_media_type', title: 'Unsupported content type' },
  bodyTooLarge: { status: 413, code: 'request.body_too_large', title: 'Request body too large' },
  validationFailed: { status: 400, code: 'request.validation_failed', title: 'Request validation failed' },
  badRequest: { status: 400, code: 'request.malformed', title: 'Malformed request' },
  invalidCursor: { status: 400, code: '<resource>.invalid_cursor', title: 'Invalid pagination cursor' },
  // versioning
  apiVersionInvalid: { status: 400, code: 'api_version.invalid', title: 'Malformed Service-Api-Version' },
  apiVersionUnsupported: { status: 400, code: 'api_version.unsupported', title: 'Unsupported Service-Api-Version' },
  // authentication and authorisation
  unauthenticated: { status: 401, code: 'auth.unauthenticated', title: 'Unauthenticated' },
  apiKeyExpired: { status: 401, code: 'auth.api_key.expired', title: 'API key expired' },
  apiKeyRevoked: { status: 401, code: 'auth.api_key.revoked', title: 'API key revoked' },
  insufficientScope: { status: 403, code: 'auth.insufficient_scope', title: 'Missing scope' },
  ssoIssuerUnreachable: { status: 503, code: 'auth.issuer_unreachable', title: 'Session token issuer unreachable' },
  // organizations, members and invites (SSO)
  onboardingUnsupported: {
    status: 501,
    code: 'onboarding.unsupported_in_self_hosted',
    title: 'Organization creation is not available in self-hosted deployments',
  },
  onboardingSessionRequired: {
    status: 403,
    code: 'onboarding.session_required',
    title: 'An SSO session is required',
  },
  onboardingAlreadyInOrganization: {
    status: 409,
    code: 'onboarding.already_in_organization',
    title: 'The session already belongs to an organization',
  },
  organizationDeleteUnsupported: {
    status: 501,
    code: 'organizations.delete.unsupported_in_self_hosted',
    title: 'Organization deletion is not available in self-hosted deployments',
  },
  organizationNotFound: { status: 404, code: 'organizations.not_found', title: 'Organization not found' },
  organizationDeleteNotOwner: {
    status: 409,
    code: 'organizations.delete.not_owner',
    title: 'Only the owner can delete the organization',
  },
  organizationDeleteOtherMembers: {
    status: 409,
    code: 'organizations.delete.other_members',
    title: 'The organization has other members',
  },
  organizationDeletePendingInvites: {
    status: 409,
    code: 'organizations.delete.pending_invites',
    title: 'The organization has pending invites',
  },
  identityProviderFailure: {
    status: 502,
    code: 'identity_provider.upstream_failure',
    title: 'The identity provider failed',
  },
  userNotFound: { status: 404, code: 'users.not_found', title: 'Member not found' },
  lastOwner: { status: 409, code: 'users.last_owner', title: 'The last owner cannot be removed or demoted' },
  ownerRequired: { status: 403, code: 'users.owner_required', title: 'Only an owner can change owners' },
  inviteNotFound: { status: 404, code: 'invites.not_found', title: 'Invite not found' },
  inviteExpired: { status: 410, code: 'invites.expired', title: 'Invite expired' },
  inviteEmailMismatch: { status: 403, code: 'invites.email_mismatch', title: 'Invite addressed to another email' },
  invitePrincipalEmailUnavailable: {
    status: 403,
    code: 'invites.principal_email_unavailable',
    title: 'The caller has no email to match the invite',
  },
  inviteAlreadyMember: { status: 409, code: 'invites.already_member', title: 'Already a member' },
  inviteUpstreamFailure: {
    status: 502,
    code: 'invites.upstream_failure',
    title: 'The identity provider failed to add the member',
  },
  // rate limiting
  rateLimited: { status: 429, code: 'rate_limit.exceeded', title: 'Rate limit exceeded' },
  // idempotency
  idempotencyKeyInvalid: { status: 400, code: 'idempotency.key_invalid', title: 'Invalid Idempotency-Key' },
  idempotencyKeyReused: {
    status: 409,
    code: 'idempotency.key_reused',
    title: 'Idempotency-Key already used by another request or credential',
  },
  idempotencyInProgress: {
    status: 409,
    code: 'idempotency.request_in_progress',
    title: 'A request with this Idempotency-Key is in progress',
  },
  // API keys
  apiKeyNotFound: { status: 404, code: 'api_keys.not_found', title: 'API key not found' },
  apiKeyAlreadyRevoked: { status: 409, code: 'api_keys.already_revoked', title: 'API key already revoked' },
  apiKeyScopeEscalation: { status: 403, code: 'api_keys.scope_escalation', title: 'Scopes beyond the calling key' },
  // scans
  scanNotFound: { status: 404, code: 'scans.not_found', title: 'Scan not found' },
  unknownDetector: { status: 400, code: 'scans.unknown_detector', title: 'Unknown detector' },
  policyNotFound: { status: 404, code: 'policies.not_found', title: 'Policy not found' },
  // webhooks
  webhookNotFound: { status: 404, code: 'webhooks.not_found', title: 'Webhook not found' },
  webhookDeliveryNotFound: { status: 404, code: 'webhooks.delivery_not_found', title: 'Webhook delivery not found' },
  webhookUrlInvalid: { status: 400, code: 'webhooks.url_invalid', title: 'Webhook URL not acceptable' },
  webhookUrlRefused: { status: 400, code: 'webhooks.url_refused', title: 'Webhook URL points at a refused address' },
  webhookUrlUnresolvable: {
    status: 400,
    code: 'webhooks.url_unresolvable',
    title: 'Webhook URL host does not resolve',
  },
  webhookDeliveryInProgress: {
    status: 409,
    code: 'webhooks.delivery_in_progress',
    title: 'Delivery still in progress',
  },
  overloaded: { status: 503, code: 'service.overloaded', title: 'Service overloaded' },
  scanDeadlineExceeded: { status: 504, code: 'scans.deadline_exceeded', title: 'Scan deadline exceeded' },
  metricsUnauthorized: { status: 401, code: 'metrics.unauthenticated', title: 'Metrics token required' },
  // service
  notReady: { status: 503, code: 'service.not_ready', title: 'Service not ready' },
  databaseUnavailable: { status: 503, code: 'service.database_unavailable', title: 'Database unavailable' },
  internal: { status: 500, code: 'internal.error', title: 'Internal error' },
} as const satisfies Record<string, Entry>;

export type ErrorName = keyof typeof entries;

/** Every catalogue entry, for documentation and tests. */
export const CATALOGUE: readonly Entry[] = Object.values(entries);

/** Why an `Idempotency-Key` cannot be replayed to this request (see `idempotencyKeyReused`). */
export type IdempotencyReuse = 'request' | 'credential' | 'unbound';

// No detail says anything of the stored request or response.
const IDEMPOTENCY_REUSE_DETAIL: Record<IdempotencyReuse, string> = {
  request: 'This Idempotency-Key was already used with a different request (method, path or body).',
  credential: 'This Idempotency-Key belongs to another credential of this organization; choose a key of your own.',
  unbound:
    'This Idempotency-Key was recorded before keys were bound to the credential that sent them; it cannot be replayed, and is free again once its retention (24 h by default) ends.',
};

/** What a key tried to do with scopes it lacks: grant them (create), or rotate / revoke a key holding them. */
export type ScopeEscalationAction = 'grant' | 'rotate' | 'revoke';

function make(
  name: ErrorName,
  detail: string,
  extra?: Record<string, unknown>,
  headers?: Record<string, string>,
): ProblemError {
  const e = entries[name];
  return new ProblemError(e.status, e.code, e.title, detail, extra, headers);
}

/** One factory per error. */
export const Errors = {
  routeNotFound: (method: string, path: string) => make('routeNotFound', `No route matches ${method} ${path}.`),
  methodNotAllowed: (method: string, allowed: string[]) =>
    make(
      'methodNotAllowed',
      `${method} is not allowed here; allowed: ${allowed.join(', ')}.`,
      {},
      { Allow: allowed.join(', ') },
    ),
  invalidJson: () => make('invalidJson', 'The request body is not valid JSON.'),
  unsupportedMediaType: (got: string) =>
    make('unsupportedMediaType', `Content-Type must be application/json; got ${JSON.stringify(got.slice(0, 100))}.`),
  bodyTooLarge: (limit: number) => make('bodyTooLarge', `The request body exceeds the limit of ${limit} bytes.`),
  validationFailed: (errors: ValidationIssue[]) =>
    make(
      'validationFailed',
      errors
        .map((e) => `${e.path || '(root)'}: ${e.message}`)
        .join('; ')
        .slice(0, 1000),
      { errors },
    ),
  badRequest: (detail: string) => make('badRequest', detail),
  invalidCursor: (resource: string) =>
    new ProblemError(
      400,
      `${resource}.invalid_cursor`,
      entries.invalidCursor.title,
      'The cursor is malformed, was tampered with, or belongs to another list.',
    ),
  apiVersionInvalid: (value: string) =>
    make(
      'apiVersionInvalid',
      `Service-Api-Version must be a calendar date YYYY-MM-DD; got ${JSON.stringify(value.slice(0, 40))}.`,
    ),
  apiVersionUnsupported: (value: string, earliest: string) =>
    make('apiVersionUnsupported', `Service-Api-Version ${value} predates the earliest supported revision ${earliest}.`),
  unauthenticated: (detail = 'A valid API key is required: Authorization: Bearer <API_KEY>.') =>
    make('unauthenticated', detail),
  apiKeyExpired: () => make('apiKeyExpired', 'This API key has expired; rotate it or create a new one.'),
  apiKeyRevoked: () => make('apiKeyRevoked', 'This API key has been revoked.'),
  ssoIssuerUnreachable: () =>
    make(
      'ssoIssuerUnreachable',
      'The session token issuer could not be reached to verify the token; retry shortly.',
      {},
      { 'Retry-After': '5' },
    ),
  onboardingUnsupported: () =>
    make(
      'onboardingUnsupported',
      'Self-hosted deployments create organizations with the operator CLI (npm run cli -- bootstrap), not the API.',
    ),
  onboardingSessionRequired: () =>
    make(
      'onboardingSessionRequired',
      'Organizations are created by a person signed in with an SSO session token, not with an API key.',
    ),
  onboardingAlreadyInOrganization: () =>
    make(
      'onboardingAlreadyInOrganization',
      'This session token already names an organization; organization creation is for a user whose token has no org_id.',
    ),
  organizationDeleteUnsupported: () =>
    make('organizationDeleteUnsupported', 'Self-hosted deployments do not delete organizations through the API.'),
  organizationNotFound: (id: string) => make('organizationNotFound', `No organization ${id} is yours to delete.`),
  organizationDeleteNotOwner: () =>
    make('organizationDeleteNotOwner', 'Only the organization owner, signed in with an SSO session, can delete it.'),
  organizationDeleteOtherMembers: (n: number) =>
    make('organizationDeleteOtherMembers', `The organization has ${n} other member(s); remove them first.`, {
      other_members: n,
    }),
  organizationDeletePendingInvites: (n: number) =>
    make('organizationDeletePendingInvites', `The organization has ${n} pending invite(s); revoke them first.`, {
      pending_invites: n,
    }),
  identityProviderFailure: (what: string) =>
    make(
      'identityProviderFailure',
      `The identity provider failed while ${what}; nothing was changed here, so a retry is safe.`,
      {},
      { 'Retry-After': '5' },
    ),
  userNotFound: (id: string) => make('userNotFound', `No member ${id} in this organization.`),
  lastOwner: () => make('lastOwner', 'This is the organization’s last owner; make another member owner first.'),
  ownerRequired: () => make('ownerRequired', 'Only an owner can grant, remove or change the owner role.'),
  inviteNotFound: () => make('inviteNotFound', 'No invite matches; it may have been revoked or already accepted.'),
  inviteNotFoundById: (id: string) =>
    new ProblemError(404, 'invites.not_found', entries.inviteNotFound.title, `No invite ${id} in this organization.`),
  inviteExpired: () => make('inviteExpired', 'This invite has expired; ask for a new one.'),
  inviteEmailMismatch: () =>
    make('inviteEmailMismatch', 'This invite is addressed to another email address than the signed-in one.'),
  invitePrincipalEmailUnavailable: () =>
    make(
      'invitePrincipalEmailUnavailable',
      'The caller has no verified email claim to match against the invite; sign in with an SSO session carrying one.',
    ),
  inviteAlreadyMember: () =>
    make('inviteAlreadyMember', 'The signed-in user is already a member of this organization.'),
  inviteUpstreamFailure: () =>
    make(
      'inviteUpstreamFailure',
      'The identity provider failed to add the member; nothing was written, so retrying is safe.',
      {},
      { 'Retry-After': '5' },
    ),
  insufficientScope: (scope: string) =>
    make('insufficientScope', `This operation requires the scope '${scope}'.`, { required_scope: scope }),
  rateLimited: (retryAfter: number) =>
    make('rateLimited', `Too many requests; retry after ${retryAfter} s.`, {}, { 'Retry-After': String(retryAfter) }),
  idempotencyKeyInvalid: () =>
    make('idempotencyKeyInvalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.'),
  /** `request`: another method, path or body; `credential`: another principal's key; `unbound`: a record from before keys were bound to their principal. */
  idempotencyKeyReused: (by: IdempotencyReuse = 'request') =>
    make('idempotencyKeyReused', IDEMPOTENCY_REUSE_DETAIL[by]),
  idempotencyInProgress: () =>
    make(
      'idempotencyInProgress',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
      {},
      { 'Retry-After': '1' },
    ),
  apiKeyNotFound: (id: string) => make('apiKeyNotFound', `No API key ${id} in this organization.`),
  apiKeyAlreadyRevoked: (id: string) =>
    make('apiKeyAlreadyRevoked', `API key ${id} is revoked; revoked keys cannot be rotated.`),
  /** `scopes`: the ones the calling key lacks, requested (`grant`) or held by the key it acts on. */
  apiKeyScopeEscalation: (scopes: string[], action: ScopeEscalationAction = 'grant') =>
    make(
      'apiKeyScopeEscalation',
      action === 'grant'
        ? `The calling key lacks the scopes it tries to grant: ${scopes.join(', ')}.`
        : `The calling key cannot ${action} a key holding scopes it lacks: ${scopes.join(', ')}.`,
      { scopes },
    ),
  scanNotFound: (id: string) => make('scanNotFound', `No scan ${id} in this organization.`),
  unknownDetector: (unknown: string[], known: string[]) =>
    make(
      'unknownDetector',
      `Unknown detector(s): ${unknown.map((u) => JSON.stringify(u.slice(0, 64))).join(', ')}; known: ${known.join(', ')}.`,
      {
        errors: unknown.map((u) => ({
          path: 'options.detectors',
          message: `unknown detector ${JSON.stringify(u.slice(0, 64))}`,
        })),
        known_detectors: known,
      },
    ),
  policyNotFound: (id: string) => make('policyNotFound', `No policy ${id} in this organization.`),
  webhookNotFound: (id: string) => make('webhookNotFound', `No webhook ${id} in this organization.`),
  webhookDeliveryNotFound: (id: string) =>
    make('webhookDeliveryNotFound', `No webhook delivery ${id} in this organization.`),
  /** `url` is not an acceptable https URL (scheme, shape, credentials, length). */
  webhookUrlInvalid: (detail: string) =>
    make('webhookUrlInvalid', detail, { errors: [{ path: 'url', message: detail }] }),
  /** `url`'s host is, or resolves to, an address outside the public internet (SSRF protection). */
  webhookUrlRefused: (detail: string) =>
    make('webhookUrlRefused', detail, { errors: [{ path: 'url', message: detail }] }),
  webhookUrlUnresolvable: (detail: string) =>
    make('webhookUrlUnresolvable', detail, { errors: [{ path: 'url', message: detail }] }),
  webhookDeliveryInProgress: (id: string, status: string) =>
    make(
      'webhookDeliveryInProgress',
      `Delivery ${id} is ${status}: its retries are still scheduled. Redeliver once it has succeeded or been dead-lettered.`,
    ),
  overloaded: (retryAfter: number) =>
    make(
      'overloaded',
      `The model workers are saturated; retry after ${retryAfter} s.`,
      {},
      { 'Retry-After': String(retryAfter) },
    ),
  scanDeadlineExceeded: (ms: number) =>
    make(
      'scanDeadlineExceeded',
      `Model inference did not finish within the scan deadline of ${ms} ms; nothing was stored.`,
    ),
  metricsUnauthorized: () =>
    make(
      'metricsUnauthorized',
      'The metrics endpoint requires Authorization: Bearer <METRICS_TOKEN>.',
      {},
      { 'WWW-Authenticate': 'Bearer realm="metrics"' },
    ),
  notReady: (detail: string) => make('notReady', detail),
  /** The database cannot be reached right now (restarting, down, connections dropped). */
  databaseUnavailable: (retryAfter: number) =>
    make(
      'databaseUnavailable',
      `The database is unavailable; retry after ${retryAfter} s.`,
      {},
      { 'Retry-After': String(retryAfter) },
    ),
  internal: () => make('internal', 'An unexpected error occurred; contact support with the X-Request-Id.'),
};
