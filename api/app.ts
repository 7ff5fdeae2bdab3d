import express, { type Express } from 'express';
import { CursorCodec } from '../lib/cursor.ts';
import { Errors } from '../lib/errors.ts';
import { Authenticator } from '../services/authenticator.ts';
import { MemoryRateLimiter, RedisRateLimiter } from '../services/rate-limiter.ts';
import { invalidationBus, TOPICS } from '../services/invalidation-bus.ts';
import { PolicyCache, type PolicyDeps } from '../services/policies.ts';
import { policyRoutes } from './routes/policies/router.ts';
import { webhookRoutes } from './routes/webhooks/router.ts';
import { DeliveryPump, HttpsSender } from '../services/webhooks/delivery.ts';
import { AllowList } from '../services/webhooks/url-guard.ts';
import { SubscriptionCache, type WebhookDeps } from '../services/webhooks/subscriptions.ts';
import { LATEST_API_VERSION } from './versions.ts';
import { readFileSync } from 'node:fs';
import type { AppDeps, AppServices } from './context.ts';
import { createMetrics } from '../lib/metrics.ts';
import { jsonBody } from './middleware/body.ts';
import { parseQuery } from './query-parser.ts';
import { identify } from './middleware/identify.ts';
import { idempotency } from './middleware/idempotency.ts';
import { problemHandler } from './middleware/problem.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { apiVersion, requestContext } from './middleware/request-context.ts';
import { Routes, type DeclaredRoute } from './route.ts';
import { apiKeyRoutes } from './routes/api-keys/router.ts';
import { auditEventRoutes } from './routes/audit-events/router.ts';
import { healthRoutes } from './routes/health/router.ts';
import { meRoutes } from './routes/me/router.ts';
import { detectorRoutes } from './routes/detectors/router.ts';
import { scanRoutes } from './routes/scans/router.ts';
import { ScanWriter } from '../store/scan-writer.ts';

export interface BuiltApp {
  app: Express;
  services: AppServices;
  /** The routes mounted on `app` (method, Express path, access), read-only: tests enumerate them. */
  routeTable: readonly DeclaredRoute[];
  /** Stops timers and subscriptions the app owns; the deps (pool, redis) belong to the caller. */
  close(): Promise<void>;
}

/** Builds the HTTP app on the given deps. No port, no signals: see server/main.ts. */
export function buildApp(deps: AppDeps): BuiltApp {
  const { config, db, redis, clock, logger, keyring } = deps;
  const revocations = invalidationBus(redis, config.REDIS_KEY_PREFIX, TOPICS.apiKeyRevoked, logger);
  const policyChanges = invalidationBus(redis, config.REDIS_KEY_PREFIX, TOPICS.policiesChanged, logger);
  const policies: PolicyDeps = {
    db,
    clock,
    catalog: { names: deps.engine.registry.names, thresholdsOf: deps.engine.thresholdsOf },
    changes: policyChanges,
    cache: new PolicyCache(db, policyChanges, config.POLICY_CACHE_TTL_MS),
  };
  const metrics = deps.metrics ?? createMetrics(config.METRICS_ENABLED);
  const webhookChanges = invalidationBus(redis, config.REDIS_KEY_PREFIX, TOPICS.webhooksChanged, logger);
  const allow = AllowList.parse(config.WEBHOOK_UNSAFE_ALLOW_HOSTS);
  if (allow.size > 0)
    logger.warn(
      { hosts: config.WEBHOOK_UNSAFE_ALLOW_HOSTS },
      'WEBHOOK_UNSAFE_ALLOW_HOSTS is set: webhooks may reach these private hosts (for tests only)',
    );
  const webhookPump = config.WEBHOOK_DELIVERY_ENABLED
    ? new DeliveryPump({
        db,
        clock,
        logger,
        keyring,
        sender: new HttpsSender({
          allow,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          extraCa: config.WEBHOOK_CA_FILE ? [readFileSync(config.WEBHOOK_CA_FILE, 'utf8')] : [],
          lookupImpl: deps.webhookDns?.deliver,
        }),
        apiVersion: LATEST_API_VERSION,
        concurrency: config.WEBHOOK_CONCURRENCY,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        pollMs: config.WEBHOOK_POLL_MS,
        failingThreshold: config.WEBHOOK_FAILING_THRESHOLD,
        metrics: {
          attempt: (outcome, seconds) => {
            metrics.webhookAttempts.inc({ outcome });
            metrics.webhookAttemptDuration.observe(seconds);
          },
          inFlight: (n) => metrics.webhookInFlight.set(n),
          lag: (seconds) => metrics.webhookLag.observe(seconds),
        },
      })
    : null;
  const webhooks: WebhookDeps = {
    db,
    clock,
    keyring,
    changes: webhookChanges,
    subscriptions: new SubscriptionCache(db, webhookChanges, config.POLICY_CACHE_TTL_MS),
    allow,
    lookup: deps.webhookDns?.register,
    onEnqueued: () => webhookPump?.poke(),
  };
  const rateLimiter = redis
    ? new RedisRateLimiter(redis, config.REDIS_KEY_PREFIX, clock, logger)
    : new MemoryRateLimiter(clock);
  const scanWriter = new ScanWriter(db, {
    maxBatch: config.SCAN_WRITER_MAX_BATCH,
    maxConcurrent: config.SCAN_WRITER_CONCURRENCY,
    detectionEvents: config.AUDIT_DETECTION_EVENTS,
    onBatch: (rows, seconds) => {
      metrics.scanWriteBatch.observe(rows);
      metrics.scanWriteDuration.observe(seconds);
    },
    onDeliveries: (count) => {
      metrics.webhookEnqueued.inc(count);
      webhookPump?.poke();
    },
  });
  const authenticator = new Authenticator({
    db,
    clock,
    logger,
    hashKey: keyring.apiKeyHash,
    revocations,
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
    deploymentMode: config.DEPLOYMENT_MODE,
  });
  const services: AppServices = {
    ...deps,
    authenticator,
    rateLimiter,
    revocations,
    metrics,
    scanWriter,
    cursors: new CursorCodec(keyring.cursor),
    apiKeys: { db, clock, keyring, revocations, defaultTtlDays: config.API_KEY_DEFAULT_TTL_DAYS },
    policies,
    webhooks,
    webhookPump,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', parseQuery);

  app.use(requestContext(logger, metrics));
  // Probe routes (RouteSpec.probe: liveness, readiness, metrics) answer here, before identification and
  // rate limiting: a flood from one address must not turn liveness into 429s, nor spend its budget.
  const probes = express.Router();
  app.use(probes);
  app.use(identify(authenticator));
  app.use(rateLimit(rateLimiter, config));
  app.use(apiVersion());

  const routes = new Routes({
    jsonBody: jsonBody(config.BODY_LIMIT_BYTES),
    idempotency: idempotency(db, clock, config.IDEMPOTENCY_TTL_HOURS, keyring.idempotencyResponse),
  });
  healthRoutes(routes, services);
  meRoutes(routes);
  apiKeyRoutes(routes, services);
  auditEventRoutes(routes, services);
  policyRoutes(routes, services, policies);
  scanRoutes(routes, services, {
    db,
    engine: deps.engine,
    policies: policies.cache,
    writer: scanWriter,
    webhooks: webhooks.subscriptions,
    clock,
    metrics,
    deadlineMs: config.SCAN_DEADLINE_MS,
    retentionDays: config.SCAN_CONTENT_RETENTION_DAYS,
  });
  detectorRoutes(routes, services, deps.engine);
  webhookRoutes(routes, services, webhooks);
  routes.mount(app, probes);

  app.use((req, _res, next) => next(Errors.routeNotFound(req.method, req.path)));
  app.use(problemHandler(metrics, config.BODY_LIMIT_BYTES));

  webhookPump?.start();
  return {
    app,
    services,
    routeTable: routes.declared(),
    close: async () => {
      await scanWriter.drain();
      await webhookPump?.stop();
      await webhookChanges.close();
      await revocations.close();
      await policyChanges.close();
      await rateLimiter.close();
    },
  };
}
