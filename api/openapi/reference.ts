/**
 * The API reference page, `GET /docs`: Swagger UI over `/openapi.json`, served from the
 * swagger-ui-dist package (a self-contained bundle). Nothing loads from another origin: the page's
 * Content-Security-Policy allows only this origin (see `PAGE_POLICY`), and Swagger UI's online
 * validator is turned off. The assets carry the package's version in their URL and are cached for a
 * year; the page itself is revalidated on every load.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Routes } from '../route.ts';
import { IMMUTABLE, REVALIDATE, selfOnlyPolicy, sendStatic } from '../static-file.ts';

/** Where swagger-ui-dist is installed, and its version (the assets' cache key). */
const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const VERSION = (JSON.parse(readFileSync(path.join(DIST, 'package.json'), 'utf8')) as { version: string }).version;

/** The assets the page loads: route path → file of swagger-ui-dist and its media type. */
export const DOCS_ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '/docs/assets/swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript' },
  '/docs/assets/swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css' },
};

/** An asset's URL in the page: its path, with the package version so a new version is a new URL. */
const assetUrl = (route: string) => `${route}?v=${VERSION}`;

/**
 * Starts Swagger UI. Inline, and allowed by its hash in the policy: no other inline script runs.
 * `validatorUrl: null`: no badge fetched from validator.swagger.io.
 */
const START =
  "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null });";

/**
 * The page's policy: everything from this origin only, nothing inline but the start script (by hash).
 * Swagger UI sets inline styles on its elements (swagger-api/swagger-ui#10655), so styles also need
 * 'unsafe-inline' (styles cannot run code); its CSS draws icons as `data:` SVG images.
 */
const PAGE_POLICY = selfOnlyPolicy({
  script: [`'sha256-${createHash('sha256').update(START).digest('base64')}'`],
  style: ["'unsafe-inline'"],
});

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference</title>
    <link rel="stylesheet" href="${assetUrl('/docs/assets/swagger-ui.css')}" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${assetUrl('/docs/assets/swagger-ui-bundle.js')}"></script>
    <script>${START}</script>
  </body>
</html>
`;

/** An asset's bytes, read on first request and kept. */
function assetReader(file: string): () => Buffer {
  let body: Buffer | undefined;
  return () => (body ??= readFileSync(path.join(DIST, file)));
}

/** Declares `GET /docs` and its assets: public; a page, not API operations, so not in the document. */
export function referenceRoutes(routes: Routes): void {
  routes.get('/docs', {
    documented: false,
    access: 'public',
    staticFile: true,
    responds: { status: 200, description: 'The API reference page.', other: { 'text/html': 'The page.' } },
    handler: ({ res }) =>
      sendStatic(res, { type: 'text/html; charset=utf-8', cache: REVALIDATE, body: PAGE, policy: PAGE_POLICY }),
  });
  for (const [route, { file, type }] of Object.entries(DOCS_ASSETS)) {
    const read = assetReader(file);
    routes.get(route, {
      documented: false,
      access: 'public',
      staticFile: true,
      responds: { status: 200, description: `Swagger UI's ${file}.`, other: { [type]: file } },
      handler: ({ res }) => sendStatic(res, { type: `${type}; charset=utf-8`, cache: IMMUTABLE, body: read() }),
    });
  }
}
