/**
 * `npm run lint:openapi`: Redocly's lint (the rules of redocly.yaml) over the OpenAPI document as
 * `npm run openapi` builds it now, offline. Uses @redocly/openapi-core's lint API in process: the
 * same rules as `redocly lint`, without the CLI's telemetry and update checks (no traffic). A build
 * tool (dev dependencies): the service never imports it.
 */
import { fileURLToPath } from 'node:url';
import { formatProblems, getTotals, lintFromString, loadConfig } from '@redocly/openapi-core';
import { offlineOpenApiDocument } from './offline.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The schemas an operation's `x-event-stream` refers to (the events of a stream, api/openapi/paths.ts):
 * Redocly's `no-unused-components` does not look inside extensions, so it would call them unused.
 */
function streamedSchemas(document: object): Set<string> {
  const streams = Object.values((document as { paths: Record<string, Record<string, object>> }).paths)
    .flatMap((item) => Object.values(item))
    .map((op) => (op as { 'x-event-stream'?: unknown })['x-event-stream']);
  const refs = JSON.stringify(streams).matchAll(/"#\/components\/schemas\/([^"]+)"/g);
  return new Set([...refs].map((m) => `#/components/schemas/${m[1]}`));
}

const document = offlineOpenApiDocument();
const streamed = streamedSchemas(document);
const config = await loadConfig({ configPath: `${ROOT}redocly.yaml` });
const problems = (
  await lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: `${ROOT}docs/openapi.json`,
    config,
  })
).filter((p) => !(p.ruleId === 'no-unused-components' && streamed.has(p.location[0]?.pointer ?? '')));
const totals = getTotals(problems);
if (problems.length) formatProblems(problems, { totals, version: 'openapi-core', format: 'codeframe' });
else console.log('docs/openapi.json (as npm run openapi builds it): no problems');
if (totals.errors > 0) process.exitCode = 1;
