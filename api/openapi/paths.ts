/**
 * The `paths` of the OpenAPI document, one operation per declared route (`Routes.declared()`): its
 * path and query parameters, request body and security, with every schema converted from the zod
 * schema that validates the request (`z.toJSONSchema`, input side), never written by hand.
 */
import { z } from 'zod';
import type { DeclaredRoute } from '../route.ts';
import { ref, responseHeaders } from './components.ts';

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
function tagOf(template: string): string {
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

/**
 * The success status: not declared by the routes yet, so the usual one for the method (a POST that
 * creates: 201; a POST action `…:verb`: 200; DELETE: 204), marked `x-response-schema: pending`.
 */
function successStatus(method: string, template: string): '200' | '201' | '204' {
  if (method === 'DELETE') return '204';
  if (method === 'POST' && !/:[a-z_]+$/.test(template)) return '201';
  return '200';
}

function responses(r: DeclaredRoute, template: string, scope: string | undefined): Json {
  const status = successStatus(r.method, template);
  const content: Json = {};
  if (status !== '204') content['application/json'] = { schema: {} };
  if (r.eventStream)
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description: 'With `Accept: text/event-stream`: server-sent events (framing in docs/api.md).',
      },
    };
  const out: Json = {
    [status]: {
      description: 'Success.',
      headers: responseHeaders(r.probe === true),
      ...(status === '204' ? {} : { content }),
      'x-response-schema': 'pending',
    },
  };
  if (r.access !== 'public') out['401'] = ref('responses', 'Unauthenticated');
  if (scope) out['403'] = ref('responses', 'InsufficientScope');
  out.default = ref('responses', 'Problem');
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
  if (!r.probe) parameters.push(ref('parameters', 'ServiceApiVersion'));
  if (r.idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  const body = requestBody(r);
  return {
    operationId: operationId(r.method, template),
    tags: [tagOf(template)],
    description: sec.note,
    security: sec.security,
    ...(sec.scope ? { 'x-required-scope': sec.scope } : {}),
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: responses(r, template, sec.scope),
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
