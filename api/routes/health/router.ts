import { timingSafeEqual } from 'node:crypto';
import type { AppServices } from '../../context.ts';
import { Errors } from '../../../lib/errors.ts';
import { databaseReady } from '../../../services/readiness.ts';
import type { Routes, RouteSpec } from '../../route.ts';

/**
 * Liveness: `/healthz` and its older alias `/health` (no auth, no I/O). Readiness: `/readyz` also
 * checks the database and answers 503 `service.not_ready` when it cannot be reached. All of them, and
 * `/metrics`, are probes: never rate-limited, and they spend no address's budget.
 */
export function healthRoutes(routes: Routes, s: AppServices): void {
  const live: RouteSpec<unknown, unknown, undefined> = {
    access: 'public',
    probe: true,
    handler: ({ res }) => void res.json({ status: 'ok' }),
  };
  routes.get('/healthz', live).get('/health', live);
  routes.get('/readyz', {
    access: 'public',
    probe: true,
    handler: async ({ res }) => {
      if (!(await databaseReady(s.db))) throw Errors.notReady('The database is unreachable.');
      res.json({ status: 'ok', checks: { database: 'ok' } });
    },
  });
  // Metrics span every organization: with METRICS_TOKEN set they need `Authorization: Bearer <token>`
  // (required in saas mode); without it they are open, for scrapers inside a private network.
  const token = s.config.METRICS_TOKEN ? Buffer.from(`Bearer ${s.config.METRICS_TOKEN}`) : null;
  if (s.config.METRICS_ENABLED)
    routes.get('/metrics', {
      access: 'public',
      probe: true,
      handler: async ({ req, res }) => {
        if (token) {
          const got = Buffer.from(req.get('authorization') ?? '');
          if (got.length !== token.length || !timingSafeEqual(got, token)) throw Errors.metricsUnauthorized();
        }
        res.type(s.metrics.registry.contentType).send(await s.metrics.registry.metrics());
      },
    });
}
