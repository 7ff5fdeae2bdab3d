/**
 * The route table the reliability suites are driven by: one entry per route (method + path template)
 * of the app, each with the access it must require, the resource it reads or changes, and how to
 * build a valid request for it. The entries live in routes/, one file per router folder of
 * api/routes/ (routes/model.ts: the shape of an entry; routes/samples.ts: the valid bodies).
 *
 * The `scope` column is written down there from the specification and docs/api.md, NOT read from the
 * routers: the authorization matrix checks each router's declaration against it. `checkTable` fails
 * when the app mounts a route this table lacks, or the table lists one the app does not mount — so
 * A ROUTE ADDED LATER MUST BE ADDED TO ITS routes/<resource>.ts (a new router folder: a new file,
 * listed in `ROUTES` below; a new resource type: `RESOURCES` in routes/model.ts and the fixture),
 * or every reliability suite fails (docs/ARCHITECTURE.md, test section).
 */
import { templateOf } from '../../api/openapi/paths.ts';
import type { DeclaredRoute } from '../../api/route.ts';
import { ANALYTICS_ROUTES } from './routes/analytics.ts';
import { API_KEY_ROUTES } from './routes/api-keys.ts';
import { AUDIT_EVENT_ROUTES } from './routes/audit-events.ts';
import { DETECTOR_ROUTES } from './routes/detectors.ts';
import { EVIDENCE_UPLOAD_ROUTES } from './routes/evidence-uploads.ts';
import { HEALTH_ROUTES } from './routes/health.ts';
import { INVITE_ROUTES } from './routes/invites.ts';
import { ME_ROUTES } from './routes/me.ts';
import { PARAM_RESOURCE, PARAM_TOKEN, type RouteEntry } from './routes/model.ts';
import { OPENAPI_ROUTES } from './routes/openapi.ts';
import { ORGANIZATION_ROUTES } from './routes/organizations.ts';
import { POLICY_ROUTES } from './routes/policies.ts';
import { SCAN_ROUTES } from './routes/scans.ts';
import { REDTEAM_RUN_ROUTES } from './routes/redteam-runs.ts';
import { LABELED_EVENT_ROUTES } from './routes/labeled-events.ts';
import { LEGACY_ANALYSIS_ROUTES } from './routes/legacy-analyses.ts';
import { REDACTION_POLICY_ROUTES } from './routes/redaction-policy.ts';
import { USER_ROUTES } from './routes/users.ts';
import { WEBHOOK_ROUTES } from './routes/webhooks.ts';

export {
  expectedAnswer,
  ID_RESOURCES,
  PARAM_RESOURCE,
  PARAM_TOKEN,
  RESOURCES,
  UNLISTED,
  type Answer,
  type DeploymentMode,
  type IdRef,
  type IdResource,
  type Ids,
  type Method,
  type ResourceInfo,
  type ResourceType,
  type RouteEntry,
  type TokenKind,
  type Tokens,
  perOrgNumber,
  unknownId,
} from './routes/model.ts';
export { PNG_BASE64, policyBody, RECEIVER_URL_PLACEHOLDER, scanBody, withReceiver } from './routes/samples.ts';

/**
 * Every route of the app. Scopes from the spec (scans:write for scan creation; `/v1/me` and the
 * detector list unscoped; organization create and invite accept open to SSO sessions of no
 * organization) and docs/api.md (the rest); health routes are public.
 */
export const ROUTES: readonly RouteEntry[] = [
  // In this order: the fuzz seeds each route by its index.
  ...HEALTH_ROUTES,
  ...ME_ROUTES,
  ...API_KEY_ROUTES,
  ...SCAN_ROUTES,
  ...DETECTOR_ROUTES,
  ...POLICY_ROUTES,
  ...WEBHOOK_ROUTES,
  ...AUDIT_EVENT_ROUTES,
  // Appended, so the routes above keep their seeds.
  ...ORGANIZATION_ROUTES,
  ...INVITE_ROUTES,
  ...USER_ROUTES,
  ...REDTEAM_RUN_ROUTES,
  ...EVIDENCE_UPLOAD_ROUTES,
  ...LABELED_EVENT_ROUTES,
  ...REDACTION_POLICY_ROUTES,
  ...ANALYTICS_ROUTES,
  ...LEGACY_ANALYSIS_ROUTES,
  ...OPENAPI_ROUTES,
];

/** `METHOD /template` — one key per route. */
export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** An Express path as the spec's template (api/openapi/paths.ts, which the OpenAPI document uses too). */
export { templateOf };

/** The path parameters of a template, in order. */
export function paramsOf(template: string): string[] {
  return [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}

/** The template with each `{param}` replaced by `value(param)` (already URL-safe). */
export function fillPath(template: string, value: (param: string) => string): string {
  return template.replace(/\{([a-z_]+)\}/g, (_m, p: string) => value(p));
}

/**
 * The differences between the app's mounted routes and this table: routes the app declares that the
 * table lacks, entries the app does not mount, and entries whose declared access differs from the
 * table's scope. Empty when they agree.
 */
export function checkTable(declared: readonly DeclaredRoute[], table: readonly RouteEntry[] = ROUTES): string[] {
  const problems: string[] = [];
  const mounted = new Map<string, DeclaredRoute>();
  for (const d of declared) {
    const key = routeKey({ method: d.method, path: templateOf(d.path) });
    if (mounted.has(key)) problems.push(`the app declares ${key} twice`);
    mounted.set(key, d);
  }
  const listed = new Set<string>();
  for (const e of table) {
    const key = routeKey(e);
    if (listed.has(key)) problems.push(`the table lists ${key} twice`);
    listed.add(key);
    const d = mounted.get(key);
    if (!d) problems.push(`the table lists ${key}, which the app does not mount`);
    else if (d.access !== e.scope)
      problems.push(`${key}: the app declares access '${d.access}', the table requires '${e.scope}'`);
    for (const p of paramsOf(e.path))
      if (!PARAM_RESOURCE[p] && !PARAM_TOKEN[p])
        problems.push(`${key}: path parameter {${p}} names no resource in PARAM_RESOURCE (nor a PARAM_TOKEN)`);
  }
  for (const key of mounted.keys())
    if (!listed.has(key))
      problems.push(
        `the app mounts ${key}, which the table does not list: add it to test/reliability/routes/<resource>.ts`,
      );
  return problems;
}
