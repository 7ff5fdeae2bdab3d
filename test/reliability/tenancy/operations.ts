/**
 * The operations of the tenancy sequences: which routes they run (every non-public route on a
 * resource but the cross-tenant ones), how fast-check draws one, the places a route names a resource
 * id (path, body, query), and a response with what differs between any two requests masked, to
 * compare a foreign id's answer with an unknown id's.
 */
import fc from 'fast-check';
import { ID_PREFIX } from '../../../lib/ids.ts';
import type { Reply } from '../../support/harness.ts';
import {
  ID_RESOURCES,
  PARAM_RESOURCE,
  paramsOf,
  routeKey,
  ROUTES,
  type IdRef,
  type IdResource,
  type RouteEntry,
} from '../routes.ts';

export const isIdResource = (x: string): x is IdResource => (ID_RESOURCES as readonly string[]).includes(x);

/** Every non-public route on a resource, but those reaching across organizations by design (RouteEntry.crossTenant). */
export const OP_ROUTES = ROUTES.filter(
  (e) => e.scope !== 'public' && !e.crossTenant && (isIdResource(e.resource) || e.resource === 'audit_event'),
);
export const byKey = new Map(OP_ROUTES.map((e) => [routeKey(e), e]));

export interface Op {
  actor: 'A' | 'B';
  route: string;
  /** Name one of the other organization's ids (in the path, body or query: `part` picks which). */
  foreign: boolean;
  part: number;
  pick: number;
  variant: number;
  accept: number;
}

export const opArb: fc.Arbitrary<Op> = fc.record({
  actor: fc.constantFrom<Op['actor']>('A', 'B'),
  route: fc.constantFrom(...OP_ROUTES.map(routeKey)),
  foreign: fc.boolean(),
  part: fc.nat(),
  pick: fc.nat(),
  variant: fc.nat(),
  accept: fc.nat(),
});

/** The places a route names a resource id: each path parameter, each body or query reference. */
export type Part = { in: 'path'; param: string; resource: IdResource } | { in: 'body' | 'query'; ref: IdRef };

export function partsOf(e: RouteEntry): Part[] {
  return [
    ...paramsOf(e.path).map((param): Part => ({ in: 'path', param, resource: PARAM_RESOURCE[param]! })),
    ...(e.bodyRefs ?? []).map((ref): Part => ({ in: 'body', ref })),
    ...(e.queryRefs ?? []).map((ref): Part => ({ in: 'query', ref })),
  ];
}
export const resourceOf = (p: Part): IdResource => (p.in === 'path' ? p.resource : p.ref.resource);

const ANY_ID = new RegExp(`\\b(?:${Object.values(ID_PREFIX).join('|')})_[0-9A-HJKMNP-TV-Z]{26}\\b`, 'g');
/** A response with what differs between any two requests masked: ids, instants, secrets, cursors, request ids. */
export function masked(res: Reply): string {
  return res.text
    .replace(ANY_ID, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<instant>')
    .replace(/(sk_(live|test)_|whsec_)[0-9A-Za-z]+/g, '<secret>')
    .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"<cursor>"')
    .replace(/"elapsed_ms":[0-9.e-]+/g, '"elapsed_ms":0');
}
