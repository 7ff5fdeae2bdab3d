/**
 * The error catalogue's table: every error the API returns, with its HTTP status, stable dot-namespaced
 * code and title (lib/errors.ts builds the problems from it). `docs/errors.md` lists the same codes (a
 * unit test keeps the two in step).
 */
export interface Entry {
  status: number;
  code: string;
  title: string;
}

export const entries = {
  // request shape
  routeNotFound: { status: 404, code: 'request.route_not_found', title: 'No such route' },
  methodNotAllowed: { status: 405, code: 'request.method_not_allowed', title: 'Method not allowed' },
  invalidJson: { status: 400, code: 'request.invalid_json', title: 'Malformed JSON body' },
  unsupportedMediaType: { status: 415, code: 'request.unsupported_media_type', title: 'Unsupported content type' },
  bodyTooLarge: { status: 413, code: 'request.body_too_large', title: 'Request body too large' },
  validationFailed: { status: 400, code: 'request.validation_failed', title: 'Request validation failed' },
  duplicateKey: { status: 400, code: 'request.duplicate_key', title: 'A name repeated in a JSON object' },
  forbiddenKey: { status: 400, code: 'request.forbidden_key', title: 'A JSON name that is not accepted' },
  numberOutOfRange: {
    status: 400,
    code: 'request.number_out_of_range',
    title: 'A JSON number that cannot be kept exactly',
  },
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
  // redaction policy (issue 20)
  redactionDeadlineExceeded: {
    status: 504,
    code: 'redaction_policy.redactor_deadline_exceeded',
    title: 'Redaction deadline exceeded',
  },
  // labeled events (issue 20)
  labeledEventNotFound: { status: 404, code: 'labeled_events.not_found', title: 'Labeled event not found' },
  labeledEventEvidenceNotFound: { status: 400, code: 'labeled_events.evidence_not_found', title: 'Evidence not found' },
  labeledEventUnknownRun: { status: 400, code: 'labeled_events.unknown_run', title: 'Unknown red-team run' },
  labeledEventIdentifierPii: {
    status: 400,
    code: 'labeled_events.identifier_contains_pii',
    title: 'Identifier carries personal data',
  },
  // legacy analysis sessions (issue 22)
  legacyAnalysisNotFound: { status: 404, code: 'legacy_analyses.not_found', title: 'Analysis session not found' },
  // analytics (issue 21)
  analyticsWindowTooWide: { status: 400, code: 'analytics.window_too_wide', title: 'Analytics window too wide' },
  // evidence uploads (issue 20)
  evidenceNotFound: { status: 404, code: 'evidence.not_found', title: 'Evidence upload not found' },
  evidenceSignatureInvalid: { status: 403, code: 'evidence.signature_invalid', title: 'Invalid upload signature' },
  evidenceUploadExpired: { status: 410, code: 'evidence.upload_expired', title: 'Upload URL expired' },
  evidenceSizeMismatch: { status: 400, code: 'evidence.size_mismatch', title: 'Evidence size mismatch' },
  evidenceChecksumMismatch: { status: 400, code: 'evidence.checksum_mismatch', title: 'Evidence checksum mismatch' },
  evidenceAlreadyUploaded: { status: 409, code: 'evidence.already_uploaded', title: 'Evidence already uploaded' },
  evidenceNotUploaded: { status: 409, code: 'evidence.not_uploaded', title: 'Evidence not uploaded yet' },
  evidenceIdentifierPii: {
    status: 400,
    code: 'evidence.identifier_contains_pii',
    title: 'Identifier carries personal data',
  },
  // red-team runs (issue 20)
  redteamRunNotFound: { status: 404, code: 'redteam.run_not_found', title: 'Red-team run not found' },
  redteamRunAlreadyFinalized: { status: 409, code: 'redteam.run_already_finalized', title: 'Run already finalized' },
  redteamWrittenAuthorizationRequired: {
    status: 400,
    code: 'redteam.written_authorization_required',
    title: 'Written authorization required',
  },
  redteamUnknownEvent: { status: 400, code: 'redteam.unknown_event', title: 'Unknown labeled event' },
  redteamIdentifierPii: {
    status: 400,
    code: 'redteam.identifier_contains_pii',
    title: 'Identifier carries personal data',
  },
  // rate limiting
  rateLimited: { status: 429, code: 'rate_limit.exceeded', title: 'Rate limit exceeded' },
  scanCharactersExceeded: {
    status: 429,
    code: 'rate_limit.characters_exceeded',
    title: 'Scanned-character limit exceeded',
  },
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
  // Never seen by a client (it went away): what the access log and the metrics record for the request.
  clientClosed: { status: 499, code: 'request.client_closed', title: 'Client closed the request' },
  metricsUnauthorized: { status: 401, code: 'metrics.unauthenticated', title: 'Metrics token required' },
  metricsForbidden: { status: 403, code: 'metrics.forbidden', title: 'Metrics not served to this address' },
  // service
  notReady: { status: 503, code: 'service.not_ready', title: 'Service not ready' },
  databaseUnavailable: { status: 503, code: 'service.database_unavailable', title: 'Database unavailable' },
  dashboardNotBuilt: { status: 503, code: 'dashboard.not_built', title: 'Dashboard not built' },
  internal: { status: 500, code: 'internal.error', title: 'Internal error' },
} as const satisfies Record<string, Entry>;

export type ErrorName = keyof typeof entries;

/** Every catalogue entry, for documentation and tests. */
export const CATALOGUE: readonly Entry[] = Object.values(entries);
