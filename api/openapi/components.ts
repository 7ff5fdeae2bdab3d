/**
 * The reusable parts of the OpenAPI document: the bearer scheme, the common request headers, the
 * response headers, and the problem+json schema. Each is built from the constant the middleware
 * itself checks against (key shapes, API versions, the error catalogue), so none can drift.
 */
import { CATALOGUE } from '../../lib/error-catalogue.ts';
import { resourceSchemas } from '../resources.ts';
import { SCOPES } from '../../lib/scopes.ts';
import { KEY_SHAPE } from '../middleware/idempotency.ts';
import { SANE_REQUEST_ID } from '../middleware/request-context.ts';
import { API_VERSIONS, LATEST_API_VERSION } from '../versions.ts';

type Json = Record<string, unknown>;

export const ref = (kind: 'parameters' | 'headers' | 'responses' | 'schemas', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The scopes, one line each, for the security scheme and the document's description. */
export function scopeList(): string {
  return SCOPES.map((s) => `- \`${s}\`${s === 'admin' ? ' (implies every other scope)' : ''}`).join('\n');
}

/** Every code of the error catalogue with its status: `Problem.code`'s description and `x-codes`. */
function codeList(): string {
  return CATALOGUE.map((e) => `- \`${e.code}\` (${e.status}): ${e.title}`).join('\n');
}

const securitySchemes: Json = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`Authorization: Bearer <key>`) or an SSO session token. An operation that needs a ' +
      'scope names it in `x-required-scope`; a key holding `admin` may perform every operation. Scopes:\n\n' +
      scopeList(),
  },
};

const parameters: Json = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retried POST or PUT safe: the first response (below 500) is stored and replayed to the ' +
      'same credential with `Idempotent-Replayed: true`; a reuse with another request is 409 ' +
      '`idempotency.key_reused`, one while the first still runs 409 `idempotency.request_in_progress`.',
    schema: { type: 'string', pattern: KEY_SHAPE.source, maxLength: 255 },
  },
  ServiceApiVersion: {
    name: 'Service-Api-Version',
    in: 'header',
    required: false,
    description:
      `Pins a dated API revision (YYYY-MM-DD): the newest revision on or before it answers. Absent: the ` +
      `latest (${LATEST_API_VERSION}). Revisions: ${API_VERSIONS.join(', ')}.`,
    schema: { type: 'string', format: 'date' },
  },
  XRequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Kept and echoed when it matches the pattern; otherwise the server assigns one.',
    schema: { type: 'string', pattern: SANE_REQUEST_ID.source },
  },
};

const integer = { schema: { type: 'integer', minimum: 0 } };

const headers: Json = {
  XRequestId: {
    description: 'The request id (also in the log lines and problem documents).',
    schema: { type: 'string' },
  },
  ServiceApiVersion: { description: 'The API revision that answered.', schema: { type: 'string', format: 'date' } },
  RateLimitLimit: { description: 'Requests allowed in the window.', ...integer },
  RateLimitRemaining: { description: 'Requests left in the window.', ...integer },
  RateLimitReset: { description: 'Seconds until the window resets.', ...integer },
  RateLimitPolicy: { description: '`<limit>;w=<window seconds>`.', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before retrying (429, 503).', ...integer },
  Location: { description: 'The created resource.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Next-Cursor': {
    description: "The next page's cursor (CSV answers; absent on the last page).",
    schema: { type: 'string' },
  },
  Link: { description: 'RFC 8288 `<…>; rel="next"`: the next page (CSV answers).', schema: { type: 'string' } },
  'WWW-Authenticate': { description: '`Bearer`.', schema: { type: 'string' } },
};

/** The response headers of an operation: the rate-limit ones only where rate limiting runs (not on unmetered routes). */
export function responseHeaders(unmetered: boolean): Json {
  const out: Json = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (unmetered) return out;
  out['Service-Api-Version'] = ref('headers', 'ServiceApiVersion');
  for (const h of ['Limit', 'Remaining', 'Reset', 'Policy']) out[`RateLimit-${h}`] = ref('headers', `RateLimit${h}`);
  return out;
}

const problem: Json = {
  type: 'object',
  description: 'RFC 9457 problem details, `application/problem+json`, on every error.',
  required: ['type', 'title', 'status', 'code', 'instance', 'request_id'],
  properties: {
    type: { type: 'string', description: '`urn:content-firewall:problem:<code>`.' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: {
      type: 'string',
      description: `A stable dot-namespaced code. The catalogue:\n\n${codeList()}`,
      'x-codes': CATALOGUE.map((e) => e.code),
    },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Per-field issues (`request.validation_failed`).',
      items: { type: 'object', additionalProperties: true },
    },
  },
  additionalProperties: true,
};

/** The problem answer of one status: the Problem schema with `code` narrowed to `codes`. */
export function problemResponse(status: number, codes: readonly string[]): Json {
  const retry = status === 429 || status === 503;
  return {
    description: codes.map((c) => `\`${c}\``).join(', '),
    headers: {
      'X-Request-Id': ref('headers', 'XRequestId'),
      ...(retry ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}),
      ...(status === 401 ? { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') } : {}),
    },
    content: {
      'application/problem+json': {
        schema: {
          allOf: [ref('schemas', 'Problem'), { type: 'object', properties: { code: { enum: codes } } }],
        },
      },
    },
  };
}

/** `components` of the document. */
export function components(): Json {
  return {
    securitySchemes,
    parameters,
    headers,
    schemas: { Problem: problem, ...resourceSchemas() },
  };
}
