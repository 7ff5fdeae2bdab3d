import type { Request } from 'express';
import { entries } from '../../../lib/error-catalogue.ts';
import { addFindings, listFindings } from '../../../services/redteam/findings.ts';
import { createRun, finalizeRun, getRun, listRuns, type RedteamDeps } from '../../../services/redteam/runs.ts';
import type { AppServices } from '../../context.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import { page, readIdCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentAdded, presentFinding, presentRun } from './presenter.ts';
import {
  addFindingsBody,
  createRunBody,
  finalizeRunBody,
  listFindingsQuery,
  listRunsQuery,
  RedteamFindingPage,
  RedteamFindingsAdded,
  RedteamRun,
  RedteamRunPage,
  runIdParams,
} from './schema.ts';

const RUNS = 'redteam_runs';
/** What a write that runs the redactor may answer besides its own errors. */
const REDACTION_ERRORS = [entries.overloaded, entries.redactionDeadlineExceeded];
const FINDINGS = 'redteam_findings';

/**
 * Red-team runs (docs/api.md, Red-team runs): create `POST /v1/redteam-runs` (201), list
 * `GET /v1/redteam-runs`, get `GET /v1/redteam-runs/{run_id}`, finalize
 * `POST /v1/redteam-runs/{run_id}:finalize` (200), add findings `POST /v1/redteam-runs/{run_id}/findings`
 * (201), list findings `GET /v1/redteam-runs/{run_id}/findings`; scopes `redteam:read` / `redteam:write`.
 * The writes redact free text and refuse identifiers holding PII (services/redteam/runs.ts).
 */
export function redteamRunRoutes(routes: Routes, s: AppServices): void {
  const deps: RedteamDeps = { db: s.db, clock: s.clock, redaction: s.redaction };
  const actor = (req: Request) => ({ id: req.principal!.actor_id, requestId: req.id });

  // Before `/:run_id`, whose parameter would also match `rtr_…:finalize`.
  routes.post('/v1/redteam-runs/:run_id\\:finalize', {
    operationId: 'finalizeRedteamRun',
    access: 'redteam:write',
    params: runIdParams,
    body: finalizeRunBody,
    responds: { status: 200, body: RedteamRun, description: 'The finished run.' },
    errors: [entries.redteamRunNotFound, entries.redteamRunAlreadyFinalized, ...REDACTION_ERRORS],
    handler: async ({ req, res, principal, params, body }) => {
      res.json(presentRun(await finalizeRun(deps, principal.org_id, params.run_id, body, actor(req))));
    },
  });

  routes.post('/v1/redteam-runs/:run_id/findings', {
    operationId: 'addRedteamFindings',
    access: 'redteam:write',
    params: runIdParams,
    body: addFindingsBody,
    responds: { status: 201, body: RedteamFindingsAdded, description: 'The findings were stored, all of them.' },
    errors: [
      entries.redteamRunNotFound,
      entries.redteamRunAlreadyFinalized,
      entries.redteamUnknownEvent,
      entries.redteamIdentifierPii,
      ...REDACTION_ERRORS,
    ],
    handler: async ({ req, res, principal, params, body }) => {
      res.status(201).json(presentAdded(await addFindings(deps, principal.org_id, params.run_id, body, actor(req))));
    },
  });

  routes.get('/v1/redteam-runs/:run_id/findings', {
    operationId: 'listRedteamFindings',
    access: 'redteam:read',
    params: runIdParams,
    query: listFindingsQuery,
    responds: { status: 200, body: RedteamFindingPage },
    errors: [entries.redteamRunNotFound, cursorProblem(FINDINGS)],
    handler: async ({ res, principal, params, query }) => {
      const before = readIdCursor(s.cursors, FINDINGS, principal.org_id, query.cursor);
      const { rows, more } = await listFindings(deps, principal.org_id, params.run_id, before, query.limit);
      res.json(page(s.cursors, FINDINGS, principal.org_id, rows.map(presentFinding), rows.at(-1)?.id, more));
    },
  });

  routes.get('/v1/redteam-runs/:run_id', {
    operationId: 'getRedteamRun',
    access: 'redteam:read',
    params: runIdParams,
    responds: { status: 200, body: RedteamRun },
    errors: [entries.redteamRunNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentRun(await getRun(deps, principal.org_id, params.run_id)));
    },
  });

  routes.get('/v1/redteam-runs', {
    operationId: 'listRedteamRuns',
    access: 'redteam:read',
    query: listRunsQuery,
    responds: { status: 200, body: RedteamRunPage },
    errors: [cursorProblem(RUNS)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, RUNS, principal.org_id, query.cursor);
      const { rows, more } = await listRuns(deps, principal.org_id, query.state, before, query.limit);
      res.json(page(s.cursors, RUNS, principal.org_id, rows.map(presentRun), rows.at(-1)?.id, more));
    },
  });

  routes.post('/v1/redteam-runs', {
    operationId: 'createRedteamRun',
    access: 'redteam:write',
    body: createRunBody,
    responds: { status: 201, body: RedteamRun, description: 'The run, `running`.', headers: ['Location'] },
    errors: [entries.redteamWrittenAuthorizationRequired, entries.redteamIdentifierPii, ...REDACTION_ERRORS],
    handler: async ({ req, res, principal, body }) => {
      const run = await createRun(deps, principal.org_id, body, actor(req));
      res.status(201).location(`/v1/redteam-runs/${run.id}`).json(presentRun(run));
    },
  });
}
