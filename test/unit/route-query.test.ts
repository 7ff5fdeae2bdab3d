import { describe, expect, it } from 'vitest';
import { openApiRouteTable } from '../../api/openapi/offline.ts';

/**
 * Every route of the API takes only the query parameters it declares (docs/api.md, Query parameters):
 * one that does not declare a query gets the empty strict one, and a declared query schema must be
 * strict too, or a parameter it does not know would be dropped in silence. Probes and static files (the
 * unmetered routes: the OpenAPI document, /docs) take any.
 */
describe('query parameters a route does not declare', () => {
  const table = openApiRouteTable();

  it.each(table.filter((r) => !r.unmetered).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s refuses them',
    (_name, r) => {
      const parsed = r.query!.safeParse({ not_a_parameter: 'x' });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues).toContainEqual(
        expect.objectContaining({ code: 'unrecognized_keys', keys: ['not_a_parameter'], path: [] }),
      );
    },
  );

  it('the probes and static files declare none, so none is checked', () => {
    const unmetered = table.filter((r) => r.unmetered);
    expect(unmetered.map((r) => r.path).sort()).toEqual([
      '/docs',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/health',
      '/healthz',
      '/metrics',
      '/openapi.json',
      '/readyz',
    ]);
    for (const r of unmetered) expect(r.query).toBeUndefined();
  });
});
