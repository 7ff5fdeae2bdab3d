import { z } from 'zod';
import type { ScanEngine } from '../../../engine/pipeline.ts';
import type { AppServices } from '../../context.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import { pageQuery, readCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentDetector } from './presenter.ts';
import { detectorPageSchema } from './schema.ts';

const LIST = 'detectors';
/** What a catalog cursor carries: where the next page starts. */
const offsetPosition = z.object({ offset: z.number().int().min(0) });

/**
 * The detector catalog `GET /v1/detectors`: unscoped (any valid key). The list is short and the
 * same for every organization; `cursor`/`limit` page it by position like every list.
 */
export function detectorRoutes(routes: Routes, s: AppServices, engine: ScanEngine): void {
  routes.get('/v1/detectors', {
    operationId: 'listDetectors',
    access: 'authenticated',
    query: pageQuery,
    responds: { status: 200, body: detectorPageSchema },
    errors: [cursorProblem(LIST)],
    handler: ({ res, principal, query }) => {
      const all = engine.registry.detectors.map((d) => presentDetector(d, engine.registry.enabled(d.name)));
      const start = readCursor(s.cursors, LIST, principal.org_id, query.cursor, offsetPosition)?.offset ?? 0;
      const slice = all.slice(start, start + query.limit);
      const more = start + query.limit < all.length;
      res.json({
        data: slice,
        next_cursor: more ? s.cursors.encode(LIST, principal.org_id, { offset: start + query.limit }) : null,
      });
    },
  });
}
