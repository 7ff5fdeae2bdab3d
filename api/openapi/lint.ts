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

const config = await loadConfig({ configPath: `${ROOT}redocly.yaml` });
const problems = await lintFromString({
  source: JSON.stringify(offlineOpenApiDocument(), null, 2),
  absoluteRef: `${ROOT}docs/openapi.json`,
  config,
});
const totals = getTotals(problems);
if (problems.length) formatProblems(problems, { totals, version: 'openapi-core', format: 'codeframe' });
else console.log('docs/openapi.json (as npm run openapi builds it): no problems');
if (totals.errors > 0) process.exitCode = 1;
