/**
 * The shape of the route table (../routes.ts): the resource types a route reads or changes, how their
 * ids look and are answered when unknown, and what an entry says about its route.
 */
import type { Access } from '../../../api/route.ts';
import { ID_PREFIX } from '../../../lib/ids.ts';

/** Resource types with ids of their own, which a fixture creates and paths or bodies name. */
export const ID_RESOURCES = ['api_key', 'policy', 'webhook', 'webhook_delivery', 'scan'] as const;
export type IdResource = (typeof ID_RESOURCES)[number];

/** What a route reads or changes: a resource with ids, or one without (the audit log, the catalog, the caller, the process). */
export type ResourceType = IdResource | 'audit_event' | 'detector' | 'principal' | 'service';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How a resource type is told apart and read back (tenancy compares foreign ids against unknown ones). */
export interface ResourceInfo {
  /** Id prefix kind (lib/ids.ts) of a valid-shaped id. */
  idKind: keyof typeof ID_PREFIX;
  /** The problem code of an unknown (or foreign) id. */
  notFound: string;
}

export const RESOURCES: Record<IdResource, ResourceInfo> = {
  api_key: { idKind: 'apiKey', notFound: 'api_keys.not_found' },
  policy: { idKind: 'policy', notFound: 'policies.not_found' },
  webhook: { idKind: 'webhook', notFound: 'webhooks.not_found' },
  webhook_delivery: { idKind: 'webhookDelivery', notFound: 'webhooks.delivery_not_found' },
  scan: { idKind: 'scan', notFound: 'scans.not_found' },
};

/** Path parameter → the resource its id names. */
export const PARAM_RESOURCE: Record<string, IdResource> = {
  api_key_id: 'api_key',
  policy_id: 'policy',
  webhook_id: 'webhook',
  delivery_id: 'webhook_delivery',
  scan_id: 'scan',
};

/** Ids of one organization's fixture resources, by type. */
export type Ids = Readonly<Record<IdResource, string>>;

/** An id inside a body (or query) that names a resource: tenancy swaps in another organization's. */
export interface IdRef {
  /** JSON path inside the body, or the query parameter's name. */
  at: (string | number)[];
  resource: IdResource;
}

export interface RouteEntry {
  method: Method;
  /** The path template, as the spec writes it: `/v1/api-keys/{api_key_id}:rotate`. */
  path: string;
  /** The access it must require (`public`, `authenticated` = any valid key, or one scope), from the spec. */
  scope: Access;
  resource: ResourceType;
  /** A successful call uses its path resource up (revoke, rotate, delete): valid requests take a fresh one. */
  consumes?: boolean;
  /** Valid bodies built from the fixture's ids; the first is the canonical one. POST/PUT only. */
  bodies?: (ids: Ids) => unknown[];
  /** Ids inside the body naming other resources. */
  bodyRefs?: IdRef[];
  /** List filters: parameter → valid sample values (the fuzz also sends junk). Lists always take cursor and limit. */
  query?: Record<string, string[]>;
  /** Query parameters naming a resource id (audit `resource_id`). */
  queryRefs?: IdRef[];
  /** `Accept` values the route answers in another representation (SSE, CSV). */
  accepts?: string[];
  /** Paged with `cursor` + `limit` (`limitMax` the largest page). */
  list?: { limitMax: number };
  /** Present only when the app runs with this config flag on (the suites turn it on). */
  when?: 'METRICS_ENABLED';
}

/** The paging of most lists: `cursor` + `limit`, pages of up to 200. */
export const pageQueryOnly = { limitMax: 200 };
