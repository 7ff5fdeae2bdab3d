/**
 * The legacy analysis API's own Express app (docs/legacy.md), served on LEGACY_PORT by the same
 * process, on the same services as v1: the same request ids and access log, the same credentials
 * (API keys only) and per-key rate limits, the same scans. It answers only
 * `POST /v1/analysis/{analysis_id}`; every error has the legacy body, never problem+json.
 */
import type { Express } from 'express';
import { baseApp } from '../base-app.ts';
import type { AppServices } from '../context.ts';
import { identify } from '../middleware/identify.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { bodyReader } from './body.ts';
import { legacyErrorHandler, LegacyErrors } from './errors.ts';
import { analysisHandler } from './handler.ts';

/** Mounts the legacy route on `services`; starts nothing (the caller listens). */
export function buildLegacyApp(services: AppServices): Express {
  const { config, metrics, authenticator, rateLimiter } = services;
  const app = baseApp(services);
  // The v1 date-versioning header means nothing here.
  app.use((_req, res, next) => {
    res.removeHeader('Service-Api-Version');
    next();
  });
  app.use(identify(authenticator));
  app.use(rateLimit(rateLimiter, config));
  app.post('/v1/analysis/:analysis_id', analysisHandler(services, bodyReader()));
  // Any other path or method: the spec lists no 405, so 404 NOT_FOUND.
  app.use((_req, _res, next) => next(LegacyErrors.notFound()));
  app.use(legacyErrorHandler(metrics));
  return app;
}
