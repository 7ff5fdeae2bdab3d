/**
 * The OpenAPI 3.1 document of the API, generated from the app's own route table (`Routes.declared()`):
 * every mounted route with its access and the zod schemas that validate its query and body. Nothing
 * in it is a hand-written copy of a schema, so it cannot drift from what the app accepts or answers:
 * each operation's success bodies are the registered response schemas (api/resources.ts), its problems
 * the codes of each status (problems.ts); `webhooks` are the deliveries the service sends (webhooks.ts).
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../lib/package-root.ts';
import type { DeclaredRoute } from '../route.ts';
import { components, scopeList } from './components.ts';
import { documentedRoutes, paths, tagOf, templateOf } from './paths.ts';
import { TAG_DESCRIPTIONS } from './summary.ts';
import { webhookOperations } from './webhooks.ts';

export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, unknown> };

/** The package's name and version (the document's `info.version`), read once. */
function packageInfo(): { name: string; version: string; description?: string } {
  return JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
    name: string;
    version: string;
    description?: string;
  };
}

/** The tags of the operations, in order of first use, each with its description. */
function tags(routes: readonly DeclaredRoute[]): { name: string; description?: string }[] {
  const names = [...new Set(documentedRoutes(routes).map((r) => tagOf(templateOf(r.path))))];
  return names.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) }));
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
    tags: tags(routes),
    paths: paths(routes),
    webhooks: webhookOperations(),
    components: components(),
  };
}
