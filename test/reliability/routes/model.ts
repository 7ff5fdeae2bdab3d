/**
 * The shape of the route table (../routes.ts): the resource types a route reads or changes, how their
 * ids look and are answered when unknown, and what an entry says about its route.
 */
import type { Access } from '../../../api/route.ts';
import { ID_PREFIX, newId } from '../../../lib/ids.ts';

/** Resource types with ids of their own, which a fixture creates and paths or bodies name. */
export const ID_RESOURCES = [
  'api_key',
  'policy',
  'webhook',
  'webhook_delivery',
  'scan',
  'invite',
  'user',
  'organization',
  'redteam_run',
  'labeled_event',
  'legacy_analysis',
] as const;
export type IdResource = (typeof ID_RESOURCES)[number];

/** What a route reads or changes: a resource with ids, or one without (the audit log, the catalog, the caller, the process). */
export type ResourceType =
  | IdResource
  | 'audit_event'
  | 'detector'
  | 'principal'
  | 'service'
  | 'redteam_finding'
  | 'evidence_upload'
  | 'redaction_policy'
  | 'analytics'
  | 'legacy_usage';

/**
 * Resource types no list route reads back, and why: tenancy takes the fixture's own id of such a type
 * as the organization's only one.
 */
export const UNLISTED: Partial<Record<ResourceType, string>> = {
  principal: 'the caller itself: GET /v1/me reads it',
  organization: 'a caller sees only its own organization (its id is in GET /v1/me); there is no organization list',
  evidence_upload:
    'no list route: the create answer and :complete (404 for a foreign key, tested in test/integration/evidence-uploads.test.ts) are its only reads',
  redaction_policy:
    'one per organization, no id: GET /v1/org/redaction-policy reads it (its versions are counted in the digest)',
  analytics:
    "sums over the organization's own scans (read back through the scan list), no ids, nothing to change: no operation names one",
  legacy_usage:
    "the month's count of legacy requests: one per organization and month, no id, changed by no v1 route (GET /v1/legacy-usage reads it)",
};

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a resource type is told apart and read back (tenancy compares foreign ids against unknown ones). */
export interface ResourceInfo {
  /**
   * Id prefix kind (lib/ids.ts) of a valid-shaped id; `perOrgNumber`: a positive integer numbered per
   * organization (legacy analysis sessions: 1, 2, 3 … in each), so the same number names each
   * organization's own resource — it is no other organization's id to leak, and naming it acts on
   * the caller's own (tenancy checks only that the other organization's state does not move).
   */
  idKind: keyof typeof ID_PREFIX | 'perOrgNumber';
  /** The problem code of an unknown (or foreign) id. */
  notFound: string;
  /** The field of a list item holding its id, where it is not `id` (the spec's `run_id`). */
  idField?: string;
}

export const RESOURCES: Record<IdResource, ResourceInfo> = {
  api_key: { idKind: 'apiKey', notFound: 'api_keys.not_found' },
  policy: { idKind: 'policy', notFound: 'policies.not_found' },
  webhook: { idKind: 'webhook', notFound: 'webhooks.not_found' },
  webhook_delivery: { idKind: 'webhookDelivery', notFound: 'webhooks.delivery_not_found' },
  scan: { idKind: 'scan', notFound: 'scans.not_found' },
  invite: { idKind: 'invite', notFound: 'invites.not_found' },
  user: { idKind: 'user', notFound: 'users.not_found' },
  organization: { idKind: 'org', notFound: 'organizations.not_found' },
  redteam_run: { idKind: 'redteamRun', notFound: 'redteam.run_not_found', idField: 'run_id' },
  labeled_event: { idKind: 'labeledEvent', notFound: 'labeled_events.not_found', idField: 'event_id' },
  legacy_analysis: { idKind: 'perOrgNumber', notFound: 'legacy_analyses.not_found', idField: 'analysis_id' },
};

/** Whether `t`'s ids are numbered per organization (a number is no organization's secret). */
export const perOrgNumber = (t: IdResource): boolean => RESOURCES[t].idKind === 'perOrgNumber';

/** A valid-shaped id of `t` that names nothing (the largest integer for per-organization numbers). */
export function unknownId(t: IdResource): string {
  const kind = RESOURCES[t].idKind;
  return kind === 'perOrgNumber' ? '2147483647' : newId(kind);
}

/** Path parameter → the resource its id names. */
export const PARAM_RESOURCE: Record<string, IdResource> = {
  api_key_id: 'api_key',
  policy_id: 'policy',
  webhook_id: 'webhook',
  delivery_id: 'webhook_delivery',
  scan_id: 'scan',
  invite_id: 'invite',
  user_id: 'user',
  org_id: 'organization',
  run_id: 'redteam_run',
  event_id: 'labeled_event',
  analysis_id: 'legacy_analysis',
};

/**
 * Path parameters that carry a secret, not an id (an invite's accept token: the credential itself,
 * valid across organizations by design), and the fixture value each takes.
 */
export const PARAM_TOKEN: Record<string, TokenKind> = {
  token: 'invite_token',
  // An evidence upload's storage key: unguessable, not a lib/ids.ts id (the fixture's is uploaded and verified).
  storage_key: 'evidence_storage_key',
};
export type TokenKind = 'invite_token' | 'evidence_storage_key';

/** Ids of one organization's fixture resources, by type. */
export type Ids = Readonly<Record<IdResource, string>>;
/** One organization's fixture secrets, by kind (a pending invite's accept token). */
export type Tokens = Readonly<Record<TokenKind, string>>;

/** An id inside a body (or query) that names a resource: tenancy swaps in another organization's. */
export interface IdRef {
  /** JSON path inside the body, or the query parameter's name. */
  at: (string | number)[];
  resource: IdResource;
}

export type DeploymentMode = 'self_hosted' | 'saas';

/** A problem answer: its HTTP status and code. */
export interface Answer {
  status: number;
  code: string;
}

export interface RouteEntry {
  method: Method;
  /** The path template, as the spec writes it: `/v1/api-keys/{api_key_id}:rotate`. */
  path: string;
  /**
   * The access it must require (`public`; `identified` = any valid credential, an SSO session of no
   * organization included; `authenticated` = any valid organization principal; or one scope), from the spec.
   */
  scope: Access;
  resource: ResourceType;
  /** A successful call uses its path resource up (revoke, rotate, delete): valid requests take a fresh one. */
  consumes?: boolean;
  /** Valid bodies built from the fixture's ids; the first is the canonical one. POST/PUT/PATCH only. */
  bodies?: (ids: Ids) => unknown[];
  /** Ids inside the body naming other resources. */
  bodyRefs?: IdRef[];
  /**
   * Query parameters (list filters, the analytics window): parameter → valid sample values (the fuzz
   * also sends junk). Lists always take cursor and limit.
   */
  query?: Record<string, string[]>;
  /**
   * Query parameters every valid request carries (the analytics window: `since`, `until` are required):
   * `validRequest` appends them; the fuzz draws them from `query` like any filter.
   */
  requiredQuery?: Record<string, string>;
  /** Query parameters naming a resource id (audit `resource_id`). */
  queryRefs?: IdRef[];
  /** `Accept` values the route answers in another representation (SSE, CSV). */
  accepts?: string[];
  /** Paged with `cursor` + `limit` (`limitMax` the largest page). */
  list?: { limitMax: number };
  /** Present only when the app runs with this config flag on (the suites turn it on). */
  when?: 'METRICS_ENABLED';
  /**
   * What a valid request answers, by deployment mode, where it cannot succeed for the suites' caller (an
   * API key): the route is unsupported in the mode (501, before any id is read), or needs an SSO
   * session. The suites expect exactly this problem where they expect a 2xx; a 5xx declared here is the
   * only one the error contract lets through. Absent for a mode: a 2xx.
   */
  expect?: Partial<Record<DeploymentMode, Answer>>;
  /**
   * The route reaches across organizations by design (the reason): tenancy runs no operation on it.
   */
  crossTenant?: string;
}

/** The paging of most lists: `cursor` + `limit`, pages of up to 200. */
export const pageQueryOnly = { limitMax: 200 };

/** The problem a valid request of `e` answers in `mode` instead of a 2xx (undefined: a 2xx). */
export function expectedAnswer(e: RouteEntry, mode: DeploymentMode): Answer | undefined {
  return e.expect?.[mode];
}
