import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiDocument } from '../../api/openapi/document.ts';
import { operation, templateOf } from '../../api/openapi/paths.ts';
import type { DeclaredRoute } from '../../api/route.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const listQuery = z.object({ cursor: z.string().min(1).optional(), since: z.iso.datetime({ offset: true }) });
const createBody = z.strictObject({ name: z.string().min(1), tags: z.array(z.string()).default([]) });

/** A small route table of every kind the generator tells apart. */
const ROUTES: DeclaredRoute[] = [
  { method: 'GET', path: '/healthz', access: 'public', probe: true },
  { method: 'GET', path: '/v1/things', access: 'scans:read', query: listQuery },
  { method: 'POST', path: '/v1/things', access: 'scans:write', body: createBody, idempotent: true, eventStream: true },
  {
    method: 'POST',
    path: '/v1/things/:thing_id\\:rotate',
    access: 'scans:write',
    body: z.strictObject({}),
    idempotent: true,
  },
  { method: 'DELETE', path: '/v1/things/:thing_id', access: 'authenticated' },
  { method: 'PUT', path: '/v1/uploads/:storage_key/content', access: 'public', rawBody: true },
];

const op = (r: DeclaredRoute): Json => operation(r);

describe('the OpenAPI generator', () => {
  it('writes Express paths as OpenAPI templates', () => {
    expect(templateOf('/v1/api-keys/:api_key_id\\:rotate')).toBe('/v1/api-keys/{api_key_id}:rotate');
    expect(templateOf('/v1/uploads/:storage_key/content')).toBe('/v1/uploads/{storage_key}/content');
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

  it('derives security, the scope, Idempotency-Key and the default statuses from the route', () => {
    const [health, list, create, rotate, remove, upload] = ROUTES.map(op);
    expect(health!.security).toEqual([]);
    expect(list!.security).toEqual([{ bearer: ['scans:read'] }]);
    expect(list!['x-required-scope']).toBe('scans:read');
    expect(remove!.security).toEqual([{ bearer: [] }]);
    const refs = (o: Json) => (o.parameters as Json[]).map((p) => p.$ref).filter(Boolean);
    expect(refs(create!)).toContain('#/components/parameters/IdempotencyKey');
    expect(refs(upload!)).not.toContain('#/components/parameters/IdempotencyKey');
    expect(refs(health!)).not.toContain('#/components/parameters/ServiceApiVersion');
    expect(Object.keys(create!.responses)).toEqual(['201', '401', '403', 'default']);
    expect(Object.keys(create!.responses['201'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(rotate!.responses)[0]).toBe('200');
    expect(remove!.responses['204']).not.toHaveProperty('content');
    expect(remove!.responses['204']['x-response-schema']).toBe('pending');
    expect(Object.keys(health!.responses['200'].headers)).toEqual(['X-Request-Id']);
    expect(Object.keys(list!.responses['200'].headers)).toContain('RateLimit-Remaining');
  });
});
