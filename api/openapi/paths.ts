/**
 * The `paths` of the OpenAPI document, one operation per declared route (`Routes.declared()`): its
 * path and query parameters, request body and security, with every schema converted from the zod
 * schema that validates the request (`z.toJSONSchema`, input side), never written by hand.
 */
import { z } from 'zod';
import { resourceName } from '../resources.ts';
import type { DeclaredRoute, Success } from '../route.ts';
import { problemResponse, ref, responseHeaders } from './components.ts';
import { problemsOf } from './problems.ts';
import { summaryOf } from './summary.ts';

type Json = Record<string, unknown>;

/** An Express path (`/v1/api-keys/:api_key_id\:rotate`) as an OpenAPI template (`/v1/api-keys/{api_key_id}:rotate`). */
export function templateOf(expressPath: string): string {
  return expressPath.replace(/(?<!\\):([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replaceAll('\\:', ':');
}

/** The path parameters of a template, in order. */
export function paramsOf(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/**
 * A request schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), the input side: what a client
 * sends, before defaults and transforms. Parts zod cannot express (a refinement, a transform) become
 * `{}` rather than failing the whole document. The tests compare the document against this.
 */
export function requestSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

/** `get_v1_api_keys_api_key_id_rotate` for `GET /v1/api-keys/{api_key_id}:rotate`: unique per route. */
export function operationId(method: string, template: string): string {
  const words = template.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words].join('_');
}

/** The tag of an operation: the resource after `/v1/`, or `service` for the unversioned routes. */
export function tagOf(template: string): string {
  const [, first, second] = template.split('/');
  return first === 'v1' && second ? second.split(/[:{]/)[0]! : 'service';
}

/** The query schema as `in: query` parameters: one per property of the object it describes. */
function queryParameters(schema: z.ZodType): Json[] {
  const json = requestSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

function security(access: DeclaredRoute['access']): { security: Json[]; note: string; scope?: string } {
  if (access === 'public') return { security: [], note: 'Public: no credential.' };
  if (access === 'identified')
    return {
      security: [{ bearer: [] }],
      note: 'Any valid credential, an SSO session of no organization included.',
    };
  if (access === 'authenticated')
    return { security: [{ bearer: [] }], note: 'Any valid credential of an organization; no scope.' };
  return {
    security: [{ bearer: [access] }],
    note: `Requires the \`${access}\` scope (or \`admin\`).`,
    scope: access,
  };
}

function successResponse(r: DeclaredRoute, s: Success): Json {
  const content: Json = {};
  if (s.body) content['application/json'] = { schema: ref('schemas', resourceName(s.body)) };
  for (const [media, description] of Object.entries(s.other ?? {}))
    content[media] = { schema: { type: 'string', description } };
  if (s.events) content['text/event-stream'] = eventStream(s.events);
  const headers = responseHeaders(r.unmetered === true);
  for (const h of s.headers ?? []) headers[h] = ref('headers', h);
  if (r.idempotent) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
  return {
    description: s.description ?? 'Success.',
    headers,
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/**
 * A `text/event-stream` content: the framing in the schema's description, and each event's `data`
 * schema under `x-events` (OpenAPI 3.1 has no keyword for the events of a stream).
 */
function eventStream(events: NonNullable<Success['events']>): Json {
  const names = Object.keys(events).map((e) => `\`${e}\``);
  return {
    schema: {
      type: 'string',
      description:
        'Server-sent events: each `id: <n>` (increasing), `event: <name>`, one `data: <JSON>` line and a ' +
        `blank line. Events: ${names.join(', ')} (their data schemas in \`x-events\`).`,
    },
    'x-events': Object.fromEntries(
      Object.entries(events).map(([name, e]) => [
        name,
        {
          description: e.description,
          schema: ref('schemas', e.data === 'Problem' ? 'Problem' : resourceName(e.data)),
        },
      ]),
    ),
  };
}

function responses(r: DeclaredRoute): Json {
  const out: Json = {};
  for (const s of r.responds) out[String(s.status)] = successResponse(r, s);
  for (const [status, codes] of problemsOf(r)) out[String(status)] = problemResponse(status, codes);
  return out;
}

function requestBody(r: DeclaredRoute): Json | undefined {
  if (r.rawBody)
    return {
      required: true,
      content: {
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
      },
    };
  if (!r.body) return undefined;
  // A body that accepts `{}` may be left out (the route reads an absent body as `{}`).
  return {
    required: !r.body.safeParse({}).success,
    content: { 'application/json': { schema: requestSchema(r.body) } },
  };
}

/** One route's operation object. */
export function operation(r: DeclaredRoute): Json {
  const template = templateOf(r.path);
  const sec = security(r.access);
  const parameters: Json[] = paramsOf(template).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (r.query) parameters.push(...queryParameters(r.query));
  parameters.push(ref('parameters', 'XRequestId'));
  if (!r.unmetered) parameters.push(ref('parameters', 'ServiceApiVersion'));
  if (r.idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  const body = requestBody(r);
  return {
    operationId: operationId(r.method, template),
    summary: summaryOf(r, template),
    tags: [tagOf(template)],
    description: sec.note,
    security: sec.security,
    ...(sec.scope ? { 'x-required-scope': sec.scope } : {}),
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: responses(r),
  };
}

/** `paths`: every declared route, under its template and lower-case method. */
export function paths(routes: readonly DeclaredRoute[]): Json {
  const out: Record<string, Json> = {};
  for (const r of routes) {
    const template = templateOf(r.path);
    (out[template] ??= {})[r.method.toLowerCase()] = operation(r);
  }
  return out;
}
