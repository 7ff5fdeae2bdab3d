/**
 * The names and request examples of the OpenAPI document's operations: every operation has a
 * readable camelCase `operationId`, unique; every request example is a body its route accepts, and
 * every route whose body has required fields has one (api/openapi/examples.ts); pages are left out.
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_EXAMPLES } from '../../api/openapi/examples.ts';
import { offlineOpenApiDocument, openApiRouteTable } from '../../api/openapi/offline.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const table = openApiRouteTable();
const doc = offlineOpenApiDocument() as Json;
const operations = Object.values(doc.paths as Record<string, Json>).flatMap((p) => Object.values(p)) as Json[];

describe('operation names', () => {
  it('every operation has a unique camelCase operationId', () => {
    const ids = operations.map((o) => o.operationId as string);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(?:[A-Z][a-z]*)*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['createScan', 'listScans', 'getScan', 'rotateApiKey']));
    const webhooks = Object.values(doc.webhooks as Record<string, Json>).map((w) => w.post.operationId as string);
    expect(webhooks).toContain('onScanBlocked');
    for (const id of webhooks) expect(id).toMatch(/^[a-z]+(?:[A-Z][a-z]*)*$/);
  });

  it('leaves the reference page and its assets out, but keeps the document itself', () => {
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/docs'))).toEqual([]);
    expect(table.filter((r) => r.path.startsWith('/docs')).map((r) => r.operationId)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(doc.paths['/openapi.json'].get.operationId).toBe('getOpenApiDocument');
  });
});

describe('request examples', () => {
  it.each(Object.entries(REQUEST_EXAMPLES))('%s: each example is a body the route accepts', (id, examples) => {
    const route = table.find((r) => r.operationId === id);
    expect(route?.body, `${id} is an operation with a JSON body`).toBeDefined();
    for (const [name, { value }] of Object.entries(examples)) {
      const parsed = route!.body!.safeParse(value);
      expect(parsed.error?.issues ?? [], `${id} ${name}`).toEqual([]);
    }
  });

  it('every body with required fields has an example, in the document', () => {
    for (const r of table.filter((t) => t.body && t.operationId && !t.body.safeParse({}).success)) {
      expect(REQUEST_EXAMPLES, r.operationId).toHaveProperty([r.operationId!]);
      const media = operations.find((o) => o.operationId === r.operationId)!.requestBody.content['application/json'];
      expect(media.examples).toEqual(REQUEST_EXAMPLES[r.operationId!]);
    }
  });
});
