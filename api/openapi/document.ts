/**
 * The OpenAPI 3.1 document of the API, generated from the app's own route table (`Routes.declared()`):
 * every mounted route with its access and the zod schemas that validate its query and body. Nothing
 * in it is a hand-written copy of a schema, so it cannot drift from what the app accepts. Response
 * schemas are still generic (`x-response-schema: pending`).
 */
import { readFileSync } from 'node:fs';
import type { DeclaredRoute } from '../route.ts';
import { components, scopeList } from './components.ts';
import { paths } from './paths.ts';

export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, unknown> };

/** The package's name and version (the document's `info.version`), read once. */
function packageInfo(): { name: string; version: string; description?: string } {
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
    description?: string;
  };
}

/** The document for `routes` (the app's `routeTable`). */
export function openApiDocument(routes: readonly DeclaredRoute[]): OpenApiDocument {
  const pkg = packageInfo();
  return {
    openapi: '3.1.0',
    info: {
      title: `${pkg.name} API`,
      version: pkg.version,
      description:
        `${pkg.description ?? ''}. Authenticate with \`Authorization: Bearer <API key>\`; each operation ` +
        'names the scope it needs (`x-required-scope`). Scopes:\n\n' +
        scopeList(),
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: paths(routes),
    components: components(),
  };
}
