/**
 * The API's errors: ProblemError and one factory per catalogue entry (lib/error-catalogue.ts holds the
 * table of statuses, codes and titles; `docs/errors.md` lists the same codes, a unit test keeps the two
 * in step).
 */
import { entries, type ErrorName } from './error-catalogue.ts';

export { CATALOGUE, type ErrorName } from './error-catalogue.ts';

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

/** The paths of some issues, for a detail (bounded). */
const pathsOf = (errors: ValidationIssue[]) =>
  errors
    .map((e) => e.path)
    .join(', ')
    .slice(0, 900);

/** The detail of the three `*.identifier_contains_pii` refusals, before the paths. */
const VERBATIM_PII = 'Identifiers are stored verbatim and may not carry personal data the redaction policy hides';

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
  /** A flaw of the body's JSON text that JSON.parse lets through (api/json-text.ts), at its path. */
  duplicateKey: (issue: ValidationIssue) =>
    make('duplicateKey', `${issue.path}: ${issue.message}.`, { errors: [issue] }),
  forbiddenKey: (issue: ValidationIssue) =>
    make('forbiddenKey', `${issue.path}: ${issue.message}.`, { errors: [issue] }),
  numberOutOfRange: (issue: ValidationIssue) =>
    make('numberOutOfRange', `${issue.path}: ${issue.message}.`, { errors: [issue] }),
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
  // redaction policy (issue 20)
  redactionDeadlineExceeded: (ms: number) =>
    make('redactionDeadlineExceeded', `The PII detector did not finish redacting within ${ms} ms; nothing was stored.`),
  // labeled events (issue 20)
  labeledEventNotFound: (id: string) => make('labeledEventNotFound', `No labeled event ${id} in this organization.`),
  labeledEventEvidenceNotFound: (errors: ValidationIssue[]) =>
    make('labeledEventEvidenceNotFound', `No verified upload in this organization: ${pathsOf(errors)}.`, { errors }),
  labeledEventUnknownRun: (errors: ValidationIssue[]) =>
    make('labeledEventUnknownRun', `No red-team run of this organization: ${pathsOf(errors)}.`, { errors }),
  labeledEventIdentifierPii: (errors: ValidationIssue[]) =>
    make('labeledEventIdentifierPii', `${VERBATIM_PII}: ${pathsOf(errors)}.`, { errors }),
  // legacy analysis sessions (issue 22)
  legacyAnalysisNotFound: (id: number) =>
    make('legacyAnalysisNotFound', `No analysis session ${id} in this organization.`),
  // analytics (issue 21)
  analyticsWindowTooWide: (grid: string, capDays: number) =>
    make(
      'analyticsWindowTooWide',
      grid === 'total'
        ? `The window may span at most ${capDays} days.`
        : `With bucket ${grid} the window may span at most ${capDays} days; use a larger bucket or a shorter window.`,
      { max_window_days: capDays },
    ),
  // evidence uploads (issue 20)
  evidenceNotFound: () => make('evidenceNotFound', 'No evidence upload has this storage key in your organization.'),
  evidenceSignatureInvalid: () => make('evidenceSignatureInvalid', 'The upload URL is not validly signed.'),
  evidenceUploadExpired: () => make('evidenceUploadExpired', 'The upload URL has expired; create a new upload.'),
  evidenceSizeMismatch: (n: number) => make('evidenceSizeMismatch', `The body is not ${n} bytes.`, { size_bytes: n }),
  evidenceChecksumMismatch: () => make('evidenceChecksumMismatch', 'The SHA-256 of the bytes is not the declared one.'),
  evidenceAlreadyUploaded: () => make('evidenceAlreadyUploaded', 'This storage key already holds verified evidence.'),
  evidenceNotUploaded: () => make('evidenceNotUploaded', 'Nothing was uploaded to this storage key yet.'),
  evidenceIdentifierPii: (errors: ValidationIssue[]) =>
    make('evidenceIdentifierPii', `${VERBATIM_PII}: ${pathsOf(errors)}.`, { errors }),
  // red-team runs (issue 20)
  redteamRunNotFound: (id: string) => make('redteamRunNotFound', `No red-team run ${id} in this organization.`),
  redteamRunAlreadyFinalized: (id: string) =>
    make('redteamRunAlreadyFinalized', `Red-team run ${id} is finished; a finished run takes no finalize or findings.`),
  redteamWrittenAuthorizationRequired: () =>
    make('redteamWrittenAuthorizationRequired', 'A red-team run needs the target owner’s written authorization.', {
      errors: [{ path: 'written_authorization', message: 'must be true' }],
    }),
  /** `errors`: each `findings.<i>.representative_event_id` naming no labeled event of the organization. */
  redteamUnknownEvent: (errors: ValidationIssue[]) =>
    make('redteamUnknownEvent', `No labeled event of this organization: ${pathsOf(errors)}.`, { errors }),
  /** `errors`: each verbatim field holding what the redaction policy hides (services/redteam/redaction.ts). */
  redteamIdentifierPii: (errors: ValidationIssue[]) =>
    make('redteamIdentifierPii', `${VERBATIM_PII}: ${pathsOf(errors)}.`, { errors }),
  insufficientScope: (scope: string) =>
    make('insufficientScope', `This operation requires the scope '${scope}'.`, { required_scope: scope }),
  rateLimited: (retryAfter: number) =>
    make('rateLimited', `Too many requests; retry after ${retryAfter} s.`, {}, { 'Retry-After': String(retryAfter) }),
  scanCharactersExceeded: (limit: number, windowSeconds: number, retryAfter: number) =>
    make(
      'scanCharactersExceeded',
      `This API key may scan ${limit} characters per ${windowSeconds} s (RATE_LIMIT_SCAN_CHARS); retry after ${retryAfter} s.`,
      {},
      { 'Retry-After': String(retryAfter) },
    ),
  idempotencyKeyInvalid: () =>
    make('idempotencyKeyInvalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.'),
  /** `request`: another method, path or body; `credential`: another principal's key; `unbound`: a record from before keys were bound to their principal. */
  idempotencyKeyReused: (by: IdempotencyReuse = 'request') =>
    make('idempotencyKeyReused', IDEMPOTENCY_REUSE_DETAIL[by]),
  /** `retryAfterSeconds`: until the running claim's lease lapses (when its process died, a retry then takes it over). */
  idempotencyInProgress: (retryAfterSeconds = 1) =>
    make(
      'idempotencyInProgress',
      'A request with this Idempotency-Key is still being processed; retry shortly.',
      {},
      { 'Retry-After': String(retryAfterSeconds) },
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
  /** The client closed the connection before its scan finished; the scan was called off. */
  clientClosed: () =>
    make('clientClosed', 'The client closed the connection before the scan finished; nothing was stored.'),
  metricsUnauthorized: () =>
    make(
      'metricsUnauthorized',
      'The metrics endpoint requires Authorization: Bearer <METRICS_TOKEN>.',
      {},
      { 'WWW-Authenticate': 'Bearer realm="metrics"' },
    ),
  /** `/metrics` without METRICS_TOKEN, from neither a loopback client nor a METRICS_ALLOW address. */
  metricsForbidden: () =>
    make(
      'metricsForbidden',
      'Without METRICS_TOKEN the metrics endpoint answers loopback clients and METRICS_ALLOW addresses only, and never a request a proxy forwarded.',
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
  /** `/dashboard` was asked for, but dist/dashboard/ holds no build (api/dashboard.ts). */
  dashboardNotBuilt: () =>
    make(
      'dashboardNotBuilt',
      'The dashboard is not built (dist/dashboard/index.html is missing): run `npm run build:dashboard` (npm ci runs it), then reload.',
    ),
  internal: () => make('internal', 'An unexpected error occurred; contact support with the X-Request-Id.'),
};
