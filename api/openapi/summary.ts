/**
 * The short human parts of the OpenAPI document that no schema holds: an operation's summary, derived
 * from its method and path (`POST /v1/api-keys/{api_key_id}:rotate` → "Rotate an API key"), and a
 * description for each tag.
 */
import type { DeclaredRoute } from '../route.ts';

/** Routes outside `/v1/`, and `/v1/me`: their path names no resource. */
const FIXED: Readonly<Record<string, string>> = {
  'GET /healthz': 'Liveness',
  'GET /health': 'Liveness (older alias of /healthz)',
  'GET /readyz': 'Readiness',
  'GET /metrics': 'Prometheus metrics',
  'GET /openapi.json': 'This OpenAPI document',
  'GET /v1/me': 'Get the calling principal',
};

const VERB: Readonly<Record<DeclaredRoute['method'], string>> = {
  GET: 'Get',
  POST: 'Create',
  PUT: 'Replace',
  PATCH: 'Update',
  DELETE: 'Delete',
};

/** Path words as a reader writes them. */
const WORDS: Readonly<Record<string, string>> = { api: 'API', redteam: 'red-team', org: 'organization' };

/** `api-keys` → `API keys`. */
const words = (segment: string) =>
  segment
    .split('-')
    .map((w) => WORDS[w] ?? w)
    .join(' ');

/** `API keys` → `API key`, `policies` → `policy`, `legacy analyses` → `legacy analysis`. */
const singular = (plural: string) =>
  plural
    .replace(/ies$/, 'y')
    .replace(/ses$/, 'sis')
    .replace(/(?<![si])s$/, '');

const withArticle = (noun: string) => `${/^([aeio]|API)/i.test(noun) ? 'an' : 'a'} ${noun}`;
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const isParam = (segment: string) => segment.startsWith('{');

/** Whether the route is a list: a GET that pages with `cursor`. */
function isList(r: DeclaredRoute): boolean {
  const shape = (r.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return r.method === 'GET' && shape !== undefined && 'cursor' in shape;
}

/** The summary of the operation `r` at `template`. */
export function summaryOf(r: DeclaredRoute, template: string): string {
  const fixed = FIXED[`${r.method} ${template}`];
  if (fixed) return fixed;
  const [path, action] = template.replace(/^\/v1\//, '').split(':') as [string, string | undefined];
  const segments = path.split('/');
  const last = segments.at(-1)!;
  const at = segments.map(isParam).lastIndexOf(true);
  // The resource a `{param}` names: `a webhook`, `an API key`.
  const owner = at > 0 ? withArticle(singular(words(segments[at - 1]!))) : '';
  if (isParam(last)) {
    if (!action) return `${VERB[r.method]} ${owner}`;
    const [verb, ...rest] = action.split('-');
    return rest.length ? `${capital(verb!)} ${owner}'s ${rest.join(' ')}` : `${capital(verb!)} ${owner}`;
  }
  if (at > 0) {
    const part = words(last);
    if (isList(r)) return `List ${owner}'s ${part}`;
    return r.method === 'POST' ? `Add ${part} to ${owner}` : `${VERB[r.method]} ${owner}'s ${part}`;
  }
  if (isList(r)) return `List ${words(last)}`;
  if (r.method === 'POST') return `Create ${withArticle(singular(words(last)))}`;
  return `${VERB[r.method]} the ${segments.map(words).join(' ')}`;
}

/** Each tag's description (the tag of an operation: the resource after `/v1/`, or `service`). */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  service: 'Probes, metrics and this document: outside `/v1/`, no API version.',
  me: 'Who the credential belongs to.',
  organizations: 'Creating and deleting an organization (docs/identity.md).',
  invites: 'Inviting users to an organization (docs/identity.md).',
  users: 'The members of an organization and their roles (docs/identity.md).',
  'api-keys': 'API keys: created with the scopes they grant, rotated, revoked.',
  'audit-events': 'The audit log of an organization, as JSON pages or CSV.',
  policies: 'What a scan decides from its findings (docs/policies.md): rules, simulation, backtests.',
  scans: 'Scanning content for prompt injection, PII, toxicity and sensitive paths (docs/api.md).',
  detectors: 'The detector catalog (docs/detectors.md).',
  webhooks: 'Outbound webhooks and their deliveries (docs/webhooks.md).',
  'webhook-deliveries': 'Redelivering a webhook delivery (docs/webhooks.md).',
  org: 'Settings of the calling organization: the redaction policy.',
  'evidence-uploads': 'Evidence files attached to labeled events (docs/evidence.md).',
  'redteam-runs': 'Red-team runs and their findings.',
  'labeled-events': 'Events labeled for evaluation and training, stored redacted.',
  analytics: 'Aggregates over an organization’s scans (docs/analytics.md).',
  'legacy-analyses': 'The legacy analysis API, kept for older clients (docs/legacy.md).',
  'legacy-usage': 'Usage of the legacy API (docs/legacy.md).',
};
