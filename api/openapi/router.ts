import type { Routes } from '../route.ts';
import { openApiDocument } from './document.ts';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route declared on `routes`. Public. Built on
 * the first request — after every router has declared its routes — and kept in memory: the route
 * table does not change while the process runs.
 */
export function openApiRoutes(routes: Routes): void {
  let cached: string | undefined;
  routes.get('/openapi.json', {
    access: 'public',
    handler: ({ res }) => {
      cached ??= JSON.stringify(openApiDocument(routes.declared()));
      res.type('application/json').send(cached);
    },
  });
}
