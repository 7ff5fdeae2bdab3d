import { z } from 'zod';
import { resource } from '../resources.ts';
import type { Routes } from '../route.ts';
import { openApiDocument } from './document.ts';
import { referenceRoutes } from './reference.ts';

/**
 * What `GET /openapi.json` answers: the document describes itself, so only its outline is stated here.
 * Not an object of `openapi` alone: orval writes a schema whose every property is a constant as a
 * `const` value, and the open remainder (`additionalProperties`) into it as an index signature, which
 * does not compile.
 */
const openApiDocumentSchema = resource(
  'OpenApiDocument',
  z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())).describe('The operations, by path template.'),
    components: z.record(z.string(), z.unknown()),
  }),
  'The OpenAPI 3.1 document of this API (this document).',
);

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route declared on `routes`. Public. Built on
 * the first request — after every router has declared its routes — and kept in memory: the route
 * table does not change while the process runs. Also `GET /docs`, the reference page that reads it.
 * Static files, so answered before identification and rate limiting (RouteSpec.staticFile).
 */
export function openApiRoutes(routes: Routes): void {
  let cached: string | undefined;
  routes.get('/openapi.json', {
    operationId: 'getOpenApiDocument',
    access: 'public',
    staticFile: true,
    responds: { status: 200, body: openApiDocumentSchema },
    handler: ({ res }) => {
      cached ??= JSON.stringify(openApiDocument(routes.declared()));
      res.type('application/json').send(cached);
    },
  });
  referenceRoutes(routes);
}
