import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { templateOf } from '../../api/openapi/paths.ts';
import type { DeclaredRoute } from '../../api/route.ts';
import { CATALOGUE } from '../../lib/error-catalogue.ts';
import { SCOPES } from '../../lib/scopes.ts';
import { call, startTestApp, type TestApp } from '../support/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let app: TestApp;
let doc: Json;

beforeAll(async () => {
  // METRICS_ENABLED: every optional route mounted, so the document covers them all.
  app = await startTestApp({ env: { METRICS_ENABLED: 'true', WORKER_THREADS: '1' } });
  const res = await call(app, 'GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Json;
});
afterAll(async () => app?.close());

/** The routes the document states: all but the reference page and its assets (no operationId). */
const routes = (): readonly DeclaredRoute[] => app.built.routeTable.filter((r) => r.operationId !== undefined);
const op = (r: DeclaredRoute): Json => doc.paths[templateOf(r.path)]?.[r.method.toLowerCase()];

/** zod's own JSON Schema of a request schema, computed here independently of api/openapi/. */
function zodSchema(schema: z.ZodType): Json {
  const { $schema: _d, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

describe('GET /openapi.json', () => {
  it('answers 200 application/json without a credential, the same document each time', async () => {
    const res = await call(app, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('lists every mounted route exactly once, with its method and security', () => {
    const operations = Object.values(doc.paths as Record<string, Json>).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(routes().length);
    const ids = new Set<string>();
    for (const r of routes()) {
      const o = op(r);
      expect(o, `${r.method} ${r.path}`).toBeDefined();
      expect(o.operationId).toBe(r.operationId);
      ids.add(o.operationId);
      if (r.access === 'public') expect(o.security).toEqual([]);
      else if (r.access === 'identified' || r.access === 'authenticated') expect(o.security).toEqual([{ bearer: [] }]);
      else {
        expect(o.security).toEqual([{ bearer: [r.access] }]);
        expect(o['x-required-scope']).toBe(r.access);
        expect(o.description).toContain(r.access);
      }
    }
    expect(ids.size).toBe(routes().length);
    expect(app.built.routeTable.length - routes().length).toBe(3); // /docs and its two assets
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it("gives each query and body schema exactly as zod's JSON Schema of the route's schema", () => {
    let queries = 0;
    let bodies = 0;
    for (const r of routes()) {
      const o = op(r);
      const query = (o.parameters as Json[]).filter((p) => p.in === 'query');
      if (r.query) {
        queries++;
        const json = zodSchema(r.query);
        expect(Object.fromEntries(query.map((p) => [p.name, p.schema])), `${r.method} ${r.path}`).toEqual(
          json.properties ?? {},
        );
        expect(query.filter((p) => p.required).map((p) => p.name)).toEqual(
          Object.keys(json.properties ?? {}).filter((k) => (json.required ?? []).includes(k)),
        );
      } else expect(query).toEqual([]);
      if (r.body) {
        bodies++;
        expect(o.requestBody.content['application/json'].schema, `${r.method} ${r.path}`).toEqual(zodSchema(r.body));
      } else if (!r.rawBody) expect(o.requestBody).toBeUndefined();
    }
    expect(queries).toBeGreaterThan(10);
    expect(bodies).toBeGreaterThan(10);
  });

  it('names path parameters, Idempotency-Key where the middleware honours it, and the common headers', () => {
    for (const r of routes()) {
      const o = op(r);
      const names = (o.parameters as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
      expect(names).toEqual([...templateOf(r.path).matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      const refs = (o.parameters as Json[]).map((p) => p.$ref).filter(Boolean);
      expect(refs.includes('#/components/parameters/IdempotencyKey'), `${r.method} ${r.path}`).toBe(
        (r.method === 'POST' || r.method === 'PUT') && r.access !== 'public',
      );
      expect(refs).toContain('#/components/parameters/XRequestId');
    }
    const create = op(routes().find((r) => r.method === 'POST' && r.path === '/v1/scans')!);
    expect(Object.keys(create.responses['201'].content)).toEqual(['application/json']);
    expect(create.responses).not.toHaveProperty('200');
    expect(create['x-event-stream']).toMatchObject({ status: 200, mediaType: 'text/event-stream' });
    expect(Object.keys(create['x-event-stream'].events)).toEqual(['detector', 'decision', 'error']);
    const headers = doc.components.parameters as Json;
    expect(Object.values(headers).map((h) => h.name)).toEqual([
      'Idempotency-Key',
      'Service-Api-Version',
      'X-Request-Id',
    ]);
  });

  it('describes errors as problem+json with every catalogue code, and lists every scope', () => {
    const problem = doc.components.schemas.Problem;
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id', 'errors']),
    );
    expect(problem.properties.code['x-codes']).toEqual(CATALOGUE.map((e) => e.code));
    for (const e of CATALOGUE) expect(problem.properties.code.description).toContain(e.code);
    // Each error status of an operation: the Problem schema, its code narrowed to catalogue codes.
    const codes = new Set(CATALOGUE.map((e) => e.code));
    for (const r of routes())
      for (const [status, answer] of Object.entries<Json>(op(r).responses).filter(([s]) => Number(s) >= 400)) {
        const [base, narrowed] = answer.content['application/problem+json'].schema.allOf as Json[];
        expect(base).toEqual({ $ref: '#/components/schemas/Problem' });
        for (const code of narrowed!.properties.code.enum as string[])
          expect(codes.has(code) || /^[a-z_]+\.invalid_cursor$/.test(code), `${r.path} ${status} ${code}`).toBe(true);
      }
    for (const s of SCOPES) expect(doc.info.description).toContain(`\`${s}\``);
  });
});
