import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiDocument } from '../../api/openapi/document.ts';
import { operation, templateOf } from '../../api/openapi/paths.ts';
import { problemsOf, cursorProblem } from '../../api/openapi/problems.ts';
import { instant, resource } from '../../api/resources.ts';
import type { DeclaredRoute } from '../../api/route.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const listQuery = z.object({ cursor: z.string().min(1).optional(), since: z.iso.datetime({ offset: true }) });
const createBody = z.strictObject({ name: z.string().min(1), tags: z.array(z.string()).default([]) });

const thing = resource('UnitTestThing', z.object({ id: z.string(), created_at: instant }));

const route = (r: Omit<DeclaredRoute, 'responds' | 'errors'> & Partial<DeclaredRoute>): DeclaredRoute => ({
  responds: [],
  errors: [],
  ...r,
});

/** A small route table of every kind the generator tells apart. */
const ROUTES: DeclaredRoute[] = (<Parameters<typeof route>[0][]>[
  {
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    access: 'public',
    unmetered: true,
    responds: [{ status: 200, body: thing }],
  },
  {
    method: 'GET',
    path: '/v1/things',
    operationId: 'listThings',
    access: 'scans:read',
    query: listQuery,
    responds: [{ status: 200, body: thing }],
  },
  {
    method: 'POST',
    path: '/v1/things',
    operationId: 'createThing',
    access: 'scans:write',
    body: createBody,
    idempotent: true,
    responds: [
      { status: 201, body: thing, headers: ['Location'] },
      {
        status: 200,
        events: {
          progress: { data: thing, description: 'Progress.' },
          error: { data: 'Problem', description: 'Terminal.' },
        },
      },
    ],
  },
  {
    method: 'POST',
    path: '/v1/things/:thing_id\\:rotate',
    operationId: 'rotateThing',
    access: 'scans:write',
    body: z.strictObject({}),
    idempotent: true,
    responds: [{ status: 200, body: thing }],
  },
  {
    method: 'DELETE',
    path: '/v1/things/:thing_id',
    operationId: 'deleteThing',
    access: 'authenticated',
    responds: [{ status: 204 }],
  },
  {
    method: 'PUT',
    path: '/v1/uploads/:storage_key/content',
    operationId: 'uploadThing',
    access: 'public',
    rawBody: true,
  },
  {
    method: 'GET',
    path: '/v1/things/:thing_id',
    operationId: 'getThing',
    access: 'scans:read',
    params: true,
    responds: [{ status: 200, body: thing }],
    errors: [{ status: 404, code: 'things.not_found' }, cursorProblem('things')],
  },
]).map(route);

const op = (r: DeclaredRoute): Json => operation(r);

describe('the OpenAPI generator', () => {
  it('writes Express paths as OpenAPI templates', () => {
    expect(templateOf('/v1/api-keys/:api_key_id\\:rotate')).toBe('/v1/api-keys/{api_key_id}:rotate');
    expect(templateOf('/v1/uploads/:storage_key/content')).toBe('/v1/uploads/{storage_key}/content');
  });

  it('names each operation by its operationId, and leaves out a route without one (a page)', () => {
    const page = route({ method: 'GET', path: '/docs', access: 'public', unmetered: true });
    const doc = openApiDocument([...ROUTES, page]);
    expect(doc.paths).not.toHaveProperty('/docs');
    expect((doc.paths['/v1/things'] as Json).post.operationId).toBe('createThing');
    expect(() => op(page)).toThrow(/no operationId/);
  });

  it('builds a valid OpenAPI 3.1 document', async () => {
    const doc = openApiDocument(ROUTES);
    expect(Object.keys(doc.paths)).toEqual([
      '/healthz',
      '/v1/things',
      '/v1/things/{thing_id}:rotate',
      '/v1/things/{thing_id}',
      '/v1/uploads/{storage_key}/content',
    ]);
    expect((doc.components as Json).schemas.UnitTestThing).toMatchObject({ required: ['id', 'created_at'] });
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('splits the query schema into parameters, with the required ones marked', () => {
    const params = (op(ROUTES[1]!).parameters as Json[]).filter((p) => p.in === 'query');
    expect(params.map((p) => [p.name, p.required])).toEqual([
      ['cursor', false],
      ['since', true],
    ]);
    expect(params[1]!.schema).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('gives the body as its input JSON Schema; a body that accepts {} is optional', () => {
    const create = op(ROUTES[2]!);
    expect(create.requestBody.required).toBe(true);
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema).toMatchObject({ type: 'object', required: ['name'], additionalProperties: false });
    expect(schema.$schema).toBeUndefined();
    expect(op(ROUTES[3]!).requestBody.required).toBe(false);
    expect(Object.keys(op(ROUTES[5]!).requestBody.content)).toEqual(['application/octet-stream']);
  });

  it('derives security, the scope, Idempotency-Key and the headers from the route', () => {
    const [health, list, create, rotate, remove, upload] = ROUTES.map(op);
    expect(health!.security).toEqual([]);
    expect(list!.security).toEqual([{ bearer: ['scans:read'] }]);
    expect(list!['x-required-scope']).toBe('scans:read');
    expect(remove!.security).toEqual([{ bearer: [] }]);
    const refs = (o: Json) => (o.parameters as Json[]).map((p) => p.$ref).filter(Boolean);
    expect(refs(create!)).toContain('#/components/parameters/IdempotencyKey');
    expect(refs(upload!)).not.toContain('#/components/parameters/IdempotencyKey');
    expect(refs(health!)).not.toContain('#/components/parameters/ServiceApiVersion');
    expect(Object.keys(create!.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(create!.responses['201'].content)).toEqual(['application/json']);
    expect(create!.responses['201'].headers).toHaveProperty('Location');
    // The stream is stated apart from the responses, so generated calls and Swagger UI default to JSON.
    const stream = create!['x-event-stream'];
    expect(stream).toMatchObject({ status: 200, mediaType: 'text/event-stream' });
    expect(stream.events).toEqual({
      progress: { description: 'Progress.', schema: { $ref: '#/components/schemas/UnitTestThing' } },
      error: { description: 'Terminal.', schema: { $ref: '#/components/schemas/Problem' } },
    });
    expect(create!.description).toContain('`Accept: text/event-stream`');
    expect(list!).not.toHaveProperty('x-event-stream');
    expect(Object.keys(rotate!.responses)[0]).toBe('200');
    expect(remove!.responses['204']).not.toHaveProperty('content');
    expect(create!.responses['201'].headers).toHaveProperty('Idempotent-Replayed');
    expect(Object.keys(health!.responses['200'].headers)).toEqual(['X-Request-Id']);
    expect(Object.keys(list!.responses['200'].headers)).toContain('RateLimit-Remaining');
  });

  it('states a declared success by its registered schema, and every problem code by status', () => {
    const get = op(ROUTES[6]!);
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UnitTestThing',
    });
    expect(get.responses['200']).not.toHaveProperty('x-response-schema');
    const codes = (status: number) =>
      get.responses[String(status)].content['application/problem+json'].schema.allOf[1].properties.code.enum;
    expect(codes(404)).toEqual(['things.not_found']);
    expect(codes(400)).toEqual([
      'api_version.invalid',
      'api_version.unsupported',
      'request.malformed',
      'request.validation_failed',
      'things.invalid_cursor',
    ]);
    expect(codes(403)).toEqual(['auth.insufficient_scope']);
    expect(get.responses['503'].headers).toHaveProperty('Retry-After');
    expect(get.responses['404'].headers).not.toHaveProperty('Retry-After');
  });

  it('gives a probe no versioning or rate-limit problems, and a public route no 401', () => {
    const health = problemsOf(ROUTES[0]!);
    expect([...health.keys()]).toEqual([400, 500]);
    expect(problemsOf(ROUTES[5]!).has(401)).toBe(false);
    expect(problemsOf(ROUTES[5]!).get(400)).not.toContain('request.invalid_json');
  });
});
