/**
 * The OpenAPI document without a running service (api/openapi/offline.ts): the offline route table is
 * the one a real app declares on the same configuration, so the committed copy (docs/openapi.json)
 * is the document the service answers at /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../api/openapi/document.ts';
import { offlineOpenApiDocument, openApiRouteTable } from '../../api/openapi/offline.ts';
import type { DeclaredRoute } from '../../api/route.ts';
import { loadConfig } from '../../config.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

let app: TestApp;

beforeAll(async () => {
  // METRICS_ENABLED: every optional route declared, as with the default configuration.
  app = await startTestApp({ env: { METRICS_ENABLED: 'true' } });
});
afterAll(async () => app?.close());

const shape = (table: readonly DeclaredRoute[]) =>
  table.map((r) => ({ method: r.method, path: r.path, access: r.access, responds: r.responds.length }));

describe('the offline route table', () => {
  it('equals the route table of a running app on the same configuration', () => {
    expect(shape(openApiRouteTable(app.config))).toEqual(shape(app.built.routeTable));
  });

  it('gives the same document as the running app', () => {
    expect(offlineOpenApiDocument(app.config)).toEqual(openApiDocument(app.built.routeTable));
  });

  it('follows the configuration: /metrics only where metrics are enabled', () => {
    const paths = (env: Record<string, string>) => openApiRouteTable(loadConfig(env)).map((r) => r.path);
    expect(paths({})).toContain('/metrics');
    expect(paths({ METRICS_ENABLED: 'false' })).not.toContain('/metrics');
  });
});
