/**
 * The `paths` of the OpenAPI document, one operation per declared route (`Routes.declared()`): its
 * path and query parameters, request body and security, with every schema converted from the zod
 * schema that validates the request (`z.toJSONSchema`, input side), never written by hand.
 */
import { z } from 'zod';
import { resourceName } from '../resources.ts';
import type { DeclaredRoute, Success } from '../route.ts';
import { problemResponse, ref, responseHeaders } from './components.ts';
import { REQUEST_EXAMPLES } from './examples.ts';
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
 * The server-sent event stream a route answers instead of JSON when asked (`Accept:
 * text/event-stream`), stated as the operation's `x-event-stream` and in its description, not among
 * its `responses`: generators turn an operation with a `text/event-stream` response into a streaming
 * call that sends no such `Accept` (so it reads JSON as zero events), and Swagger UI's "Try it out"
 * asks for the first success response's media type, the stream's 200 coming before JSON's 201. Left
 * out, every generated call and the reference page default to the JSON answer; the stream keeps its
 * status, framing, and each event's `data` schema (OpenAPI 3.1 has no keyword for a stream's events).
 */
function eventStream(s: Success & { events: NonNullable<Success['events']> }): Json {
  const names = Object.keys(s.events).map((e) => `\`${e}\``);
  return {
    status: s.status,
    mediaType: 'text/event-stream',
    description:
      `${s.description ?? 'Server-sent events.'} Framing: each event is \`id: <n>\` (increasing), ` +
      `\`event: <name>\`, one \`data: <JSON>\` line and a blank line. Events: ${names.join(', ')}.`,
    events: Object.fromEntries(
      Object.entries(s.events).map(([name, e]) => [
        name,
        {
          description: e.description,
          schema: ref('schemas', e.data === 'Problem' ? 'Problem' : resourceName(e.data)),
        },
      ]),
    ),
  };
}

/** The success a route streams instead of JSON (`Accept: text/event-stream`), if any. */
function streamOf(r: DeclaredRoute): (Success & { events: NonNullable<Success['events']> }) | undefined {
  return r.responds.find((s): s is Success & { events: NonNullable<Success['events']> } => s.events !== undefined);
}

function responses(r: DeclaredRoute): Json {
  const out: Json = {};
  for (const s of r.responds) if (!s.events) out[String(s.status)] = successResponse(r, s);
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
  const examples =
    r.operationId && REQUEST_EXAMPLES[r.operationId] ? { examples: REQUEST_EXAMPLES[r.operationId] } : {};
  return {
    required: !r.body.safeParse({}).success,
    content: { 'application/json': { schema: requestSchema(r.body), ...examples } },
  };
}

/**
 * One route's operation object.
 * @throws Error for a route without an `operationId` (one left out of the document has none).
 */
export function operation(r: DeclaredRoute): Json {
  if (!r.operationId) throw new Error(`${r.method} ${r.path} has no operationId`);
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
  const stream = streamOf(r);
  const streaming = stream
    ? `\n\nStreaming: with \`Accept: text/event-stream\` it answers ${stream.status} \`text/event-stream\` instead. ` +
      `${stream.description ?? ''} The events and their data schemas: \`x-event-stream\`.`
    : '';
  return {
    operationId: r.operationId,
    summary: summaryOf(r, template),
    tags: [tagOf(template)],
    description: sec.note + streaming,
    security: sec.security,
    ...(sec.scope ? { 'x-required-scope': sec.scope } : {}),
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: responses(r),
    ...(stream ? { 'x-event-stream': eventStream(stream) } : {}),
  };
}

/** The routes the document states: all but pages (`documented: false`, which have no operationId). */
export function documentedRoutes(routes: readonly DeclaredRoute[]): DeclaredRoute[] {
  return routes.filter((r) => r.operationId !== undefined);
}

/** `paths`: every documented route, under its template and lower-case method. */
export function paths(routes: readonly DeclaredRoute[]): Json {
  const out: Record<string, Json> = {};
  for (const r of documentedRoutes(routes)) {
    const template = templateOf(r.path);
    (out[template] ??= {})[r.method.toLowerCase()] = operation(r);
  }
  return out;
}
