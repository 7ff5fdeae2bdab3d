import type { Request } from 'express';
import { entries } from '../../../lib/error-catalogue.ts';
import {
  createAnalysis,
  deleteAnalysis,
  getAnalysis,
  listAnalyses,
  type LegacyAnalysisDeps,
} from '../../../services/legacy-analyses.ts';
import { legacyUsage } from '../../../services/legacy-quota.ts';
import type { AppServices } from '../../context.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import { readCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentAnalysis, presentUsage } from './presenter.ts';
import {
  analysisCursor,
  analysisIdParams,
  createAnalysisBody,
  LegacyAnalysis,
  LegacyAnalysisPage,
  LegacyUsage,
  listAnalysesQuery,
} from './schema.ts';

const LIST = 'legacy_analyses';

/**
 * Analysis sessions of the legacy API and its monthly usage (docs/api.md, Legacy analysis sessions):
 * create `POST /v1/legacy-analyses` (201) and delete `DELETE /v1/legacy-analyses/{analysis_id}` (204),
 * scope `admin`; list, get and `GET /v1/legacy-usage`, scope `scans:read`.
 */
export function legacyAnalysisRoutes(routes: Routes, s: AppServices): void {
  const deps: LegacyAnalysisDeps = { db: s.db, clock: s.clock };
  const actor = (req: Request) => ({ id: req.principal!.actor_id, requestId: req.id });

  routes.post('/v1/legacy-analyses', {
    operationId: 'createLegacyAnalysis',
    access: 'admin',
    body: createAnalysisBody,
    responds: { status: 201, body: LegacyAnalysis, description: 'The new session.', headers: ['Location'] },
    handler: async ({ req, res, principal, body }) => {
      const a = await createAnalysis(deps, principal.org_id, body, actor(req));
      res.status(201).location(`/v1/legacy-analyses/${a.analysis_id}`).json(presentAnalysis(a));
    },
  });

  routes.get('/v1/legacy-analyses', {
    operationId: 'listLegacyAnalyses',
    access: 'scans:read',
    query: listAnalysesQuery,
    responds: { status: 200, body: LegacyAnalysisPage },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readCursor(s.cursors, LIST, principal.org_id, query.cursor, analysisCursor)?.before;
      const { rows, more } = await listAnalyses(s.db, principal.org_id, before, query.limit);
      const last = rows.at(-1);
      res.json({
        data: rows.map(presentAnalysis),
        next_cursor: more && last ? s.cursors.encode(LIST, principal.org_id, { before: last.analysis_id }) : null,
      });
    },
  });

  routes.get('/v1/legacy-analyses/:analysis_id', {
    operationId: 'getLegacyAnalysis',
    access: 'scans:read',
    params: analysisIdParams,
    responds: { status: 200, body: LegacyAnalysis },
    errors: [entries.legacyAnalysisNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentAnalysis(await getAnalysis(s.db, principal.org_id, params.analysis_id)));
    },
  });

  routes.delete('/v1/legacy-analyses/:analysis_id', {
    operationId: 'deleteLegacyAnalysis',
    access: 'admin',
    params: analysisIdParams,
    responds: { status: 204, description: 'Deleted; the number is never reused.' },
    errors: [entries.legacyAnalysisNotFound],
    handler: async ({ req, res, principal, params }) => {
      await deleteAnalysis(deps, principal.org_id, params.analysis_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/legacy-usage', {
    operationId: 'getLegacyUsage',
    access: 'scans:read',
    responds: { status: 200, body: LegacyUsage },
    handler: async ({ res, principal }) => {
      const u = await legacyUsage(s.db, principal.org_id, s.clock.now(), s.config.LEGACY_MONTHLY_QUOTA);
      res.json(presentUsage(u));
    },
  });
}
