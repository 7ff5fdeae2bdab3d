import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { z } from 'zod';
import type { AppServices } from '../../context.ts';
import { AllowList } from '../../../lib/allow-list.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import { Errors } from '../../../lib/errors.ts';
import type { RateLimiter } from '../../../services/rate-limiter.ts';
import { databaseReady } from '../../../services/readiness.ts';
import type { RouteOptions, Routes } from '../../route.ts';
import { metricsAllowedByAddress } from './metrics-access.ts';
import { livenessSchema, readinessSchema } from './schema.ts';

const live: z.output<typeof livenessSchema> = { status: 'ok' };
const ready: z.output<typeof readinessSchema> = { status: 'ok', checks: { database: 'ok' } };

/**
 * Liveness: `/healthz` and its older alias `/health` (no auth, no I/O). Readiness: `/readyz` also
 * checks the database and answers 503 `service.not_ready` when it cannot be reached, or once the process
 * has started a graceful stop (SIGTERM: the balancer takes it out while it still serves). All of them, and
 * `/metrics`, are probes: never rate-limited, and they spend no address's budget. `/metrics` with a
 * token has a budget of its own, of wrong tokens per address (`checkMetricsToken`).
 */
export function healthRoutes(routes: Routes, s: AppServices): void {
  const liveness: RouteOptions<unknown, unknown, undefined> = {
    access: 'public',
    probe: true,
    responds: { status: 200, body: livenessSchema },
    handler: ({ res }) => void res.json(live),
  };
  routes.get('/healthz', { ...liveness, operationId: 'getLiveness' });
  routes.get('/health', { ...liveness, operationId: 'getLivenessAlias' });
  routes.get('/readyz', {
    operationId: 'getReadiness',
    access: 'public',
    probe: true,
    responds: { status: 200, body: readinessSchema },
    errors: [entries.notReady],
    handler: async ({ res }) => {
      // A stopping process leaves the balancer's rotation first, and serves on until its drain (server/main.ts).
      if (s.lifecycle.isStopping) throw Errors.notReady('The process is shutting down.');
      if (!(await databaseReady(s.db))) throw Errors.notReady('The database is unreachable.');
      res.json(ready);
    },
  });
  // Metrics span every organization: with METRICS_TOKEN set they need `Authorization: Bearer <token>`
  // from every address (required in saas mode); without it they answer loopback clients and METRICS_ALLOW
  // only (metrics-access.ts).
  const token = s.config.METRICS_TOKEN ? Buffer.from(`Bearer ${s.config.METRICS_TOKEN}`) : null;
  const allow = AllowList.parse(s.config.METRICS_ALLOW, { hosts: false });
  if (s.config.METRICS_ENABLED)
    routes.get('/metrics', {
      operationId: 'getMetrics',
      access: 'public',
      probe: true,
      responds: {
        status: 200,
        other: { 'text/plain': 'The Prometheus text exposition format (version 0.0.4).' },
      },
      errors: [entries.metricsUnauthorized, entries.metricsForbidden, entries.rateLimited],
      handler: async ({ req, res }) => {
        if (token) await checkMetricsToken(req, token, s.rateLimiter);
        else if (!metricsAllowedByAddress(req.socket.remoteAddress, req.headers, allow))
          throw Errors.metricsForbidden();
        res.type(s.metrics.registry.contentType).send(await s.metrics.registry.metrics());
      },
    });
}

/** Wrong `/metrics` tokens one client address may send per window (shared through Redis when configured). */
export const METRICS_TOKEN_FAILURES = { limit: 10, windowSeconds: 60 } as const;

/**
 * Checks the bearer against the metrics token under a budget of failed attempts per client address.
 * Past it, every attempt from the address is refused until the window ends, the right token included:
 * answering a right guess would keep the address's guessing going at full speed, 429 merely renaming
 * 401. A successful scrape spends nothing, so a scraper at an address that sends no wrong token is
 * never refused.
 * @throws ProblemError 401 `metrics.unauthenticated`; 429 `rate_limit.exceeded` with `Retry-After`.
 */
async function checkMetricsToken(req: Request, token: Buffer, limiter: RateLimiter): Promise<void> {
  const bucket = `metrics-token-failures:${req.ip ?? 'unknown'}`;
  const { limit, windowSeconds } = METRICS_TOKEN_FAILURES;
  const spent = await limiter.peek(bucket, limit, windowSeconds);
  if (!spent.allowed) throw Errors.rateLimited(spent.resetSeconds);
  const got = Buffer.from(req.get('authorization') ?? '');
  if (got.length === token.length && timingSafeEqual(got, token)) return;
  const failed = await limiter.hit(bucket, limit, windowSeconds);
  throw failed.allowed ? Errors.metricsUnauthorized() : Errors.rateLimited(failed.resetSeconds);
}
