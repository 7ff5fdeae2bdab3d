import express, { type Express } from 'express';
import { Errors } from '../lib/errors.ts';
import { baseApp } from './base-app.ts';
import { policyRoutes } from './routes/policies/router.ts';
import { webhookRoutes } from './routes/webhooks/router.ts';
import type { AppServices } from './context.ts';
import { jsonBody } from './middleware/body.ts';
import { identify } from './middleware/identify.ts';
import { idempotency } from './middleware/idempotency.ts';
import { problemHandler } from './middleware/problem.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { apiVersion } from './middleware/request-context.ts';
import { Routes, type DeclaredRoute } from './route.ts';
import { apiKeyRoutes } from './routes/api-keys/router.ts';
import { auditEventRoutes } from './routes/audit-events/router.ts';
import { healthRoutes } from './routes/health/router.ts';
import { inviteRoutes } from './routes/invites/router.ts';
import { meRoutes } from './routes/me/router.ts';
import { organizationRoutes } from './routes/organizations/router.ts';
import { userRoutes } from './routes/users/router.ts';
import { detectorRoutes } from './routes/detectors/router.ts';
import { scanRoutes } from './routes/scans/router.ts';
import { redactionPolicyRoutes } from './routes/redaction-policy/router.ts';
import { evidenceUploadRoutes } from './routes/evidence-uploads/router.ts';
import { redteamRunRoutes } from './routes/redteam-runs/router.ts';
import { labeledEventRoutes } from './routes/labeled-events/router.ts';
import { analyticsRoutes } from './routes/analytics/router.ts';
import { legacyAnalysisRoutes } from './routes/legacy-analyses/router.ts';
import { openApiRoutes } from './openapi/router.ts';
import { dashboardRouter } from './dashboard.ts';

export interface BuiltApp {
  app: Express;
  /** The routes mounted on `app` (method, Express path, access), read-only: tests enumerate them. */
  routeTable: readonly DeclaredRoute[];
}

/**
 * Mounts middleware and routes on the given services. Builds no service and starts nothing: the
 * services, their timers and their pump belong to the caller (server/services.ts).
 */
export function buildApp(services: AppServices): BuiltApp {
  const { config, db, clock, keyring, metrics, authenticator, rateLimiter } = services;
  const app = baseApp(services);
  // Probes (liveness, readiness, metrics) and static files (the OpenAPI document, /docs) answer here,
  // before identification and rate limiting: a flood from one address must not turn them into 429s,
  // nor spend its budget. Signed routes (an evidence upload URL) check their signature here, so what it
  // authenticates spends a budget of its own rather than the address's (RouteSpec.signed).
  const early = express.Router();
  app.use(early);
  // The dashboard's static files (api/dashboard.ts), outside the route table: a page, not an API operation.
  app.use(dashboardRouter(config));
  app.use(identify(authenticator));
  app.use(rateLimit(rateLimiter, config));
  app.use(apiVersion());

  const routes = new Routes({
    jsonBody: jsonBody(config.BODY_LIMIT_BYTES),
    idempotency: idempotency(db, clock, config.IDEMPOTENCY_TTL_HOURS, keyring.idempotencyResponse),
  });
  declareRoutes(routes, services);
  routes.mount(app, early);

  app.use((req, _res, next) => next(Errors.routeNotFound(req.method, req.path)));
  app.use(problemHandler(metrics, config.BODY_LIMIT_BYTES));

  return { app, routeTable: routes.declared() };
}

/**
 * Declares every route of the API on `routes`. A router reads its services only inside its handlers,
 * except for what shapes its schemas or its route list: `config` (body limits, whether `/metrics`
 * exists) and the detector catalog (`policies.catalog`). So the route table, and the OpenAPI document
 * built from it, can be had without a database (api/openapi/offline.ts).
 */
export function declareRoutes(routes: Routes, services: AppServices): void {
  healthRoutes(routes, services);
  meRoutes(routes, services.config.DEPLOYMENT_MODE);
  organizationRoutes(routes, services);
  inviteRoutes(routes, services);
  userRoutes(routes, services);
  apiKeyRoutes(routes, services);
  auditEventRoutes(routes, services);
  policyRoutes(routes, services, services.policies);
  scanRoutes(routes, services, services.scans);
  detectorRoutes(routes, services, services.engine);
  webhookRoutes(routes, services, services.webhooks);
  redactionPolicyRoutes(routes, services);
  evidenceUploadRoutes(routes, services.evidence, services.config.RATE_LIMIT_UPLOAD_REQUESTS);
  redteamRunRoutes(routes, services);
  labeledEventRoutes(routes, services);
  analyticsRoutes(routes, services, services.engine);
  legacyAnalysisRoutes(routes, services);
  openApiRoutes(routes);
}
