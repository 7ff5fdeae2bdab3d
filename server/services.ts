/**
 * The one place that builds the long-lived parts of a serving process from its runtime: invalidation
 * buses, caches, the rate limiter, the authenticator, the group-commit scan writer and the webhook
 * pump. `buildApp` (api/app.ts) only mounts HTTP on what this returns; `start()` starts the pump.
 */
import { ScanBudget } from '../services/scan-budget.ts';
import { readFileSync } from 'node:fs';
import type { AppDeps, AppServices } from '../api/context.ts';
import { LATEST_API_VERSION } from '../api/versions.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/crypto.ts';
import { CursorCodec } from '../lib/cursor.ts';
import { createMetrics, type Metrics } from '../lib/metrics.ts';
import type { ApiKeyDeps } from '../services/api-keys.ts';
import { Authenticator } from '../services/authenticator.ts';
import {
  identityProviderFromConfig,
  publicUrlFromConfig,
  ssoVerifierFromConfig,
  type IdentityDeps,
} from '../services/identity.ts';
import { createInviteMailer } from '../services/invite-mail.ts';
import { invalidationBus, TOPICS, type InvalidationBus } from '../services/invalidation-bus.ts';
import { PolicyCache } from '../services/policies/cache.ts';
import type { PolicyDeps } from '../services/policies/deps.ts';
import { MemoryRateLimiter, RedisRateLimiter } from '../services/rate-limiter.ts';
import { DeliveryPump } from '../services/webhooks/pump.ts';
import { HttpsSender } from '../services/webhooks/sender.ts';
import { SubscriptionCache, type WebhookDeps } from '../services/webhooks/subscriptions.ts';
import { AllowList } from '../lib/allow-list.ts';
import type { Db } from '../store/db.ts';
import { ScanWriter } from '../store/scan-writer.ts';
import { Lifecycle } from '../services/readiness.ts';
import { evidenceStorageFromConfig } from '../services/evidence/uploads.ts';

/** The services of a process, built and not yet started. */
export interface ServiceSet {
  services: AppServices;
  /** Starts what runs in the background (the webhook pump). */
  start(): void;
  /** Drains the scan writer, stops the pump and closes buses and limiter; the deps (pool, Redis) belong to the caller. */
  close(): Promise<void>;
}

type Wiring = Pick<AppDeps, 'config' | 'redis' | 'logger'>;

/** The bus that carries one kind of change to every process (Redis pub/sub, or in-process without Redis). */
export function changesBus(deps: Wiring, topic: (typeof TOPICS)[keyof typeof TOPICS]): InvalidationBus {
  return invalidationBus(deps.redis, deps.config.REDIS_KEY_PREFIX, topic, deps.logger);
}

/** What the API key use cases need; the CLI builds it the same way as the server. */
export function apiKeyServices(
  deps: { config: Readonly<Config>; db: Db; clock: Clock; keyring: Keyring },
  revocations: InvalidationBus,
): ApiKeyDeps {
  const { db, clock, keyring, config } = deps;
  return { db, clock, keyring, revocations, defaultTtlDays: config.API_KEY_DEFAULT_TTL_DAYS };
}

/** The group-commit scan writer, reporting its batches to `metrics`; a committed delivery wakes `pump`. */
export function scanWriterFor(
  { config, db }: Pick<AppDeps, 'config' | 'db'>,
  metrics: Metrics,
  pump: DeliveryPump | null,
): ScanWriter {
  return new ScanWriter(db, {
    maxBatch: config.SCAN_WRITER_MAX_BATCH,
    maxConcurrent: config.SCAN_WRITER_CONCURRENCY,
    detectionEvents: config.AUDIT_DETECTION_EVENTS,
    onBatch: (rows, seconds) => {
      metrics.scanWriteBatch.observe(rows);
      metrics.scanWriteDuration.observe(seconds);
    },
    onDeliveries: (count) => {
      metrics.webhookEnqueued.inc(count);
      pump?.poke();
    },
  });
}

/** The bearer authenticator: API keys (and SSO session tokens when configured), cached, dropped on revocation. */
export function authenticatorFor(
  { config, db, clock, logger, keyring }: Pick<AppDeps, 'config' | 'db' | 'clock' | 'logger' | 'keyring'>,
  revocations: InvalidationBus,
): Authenticator {
  return new Authenticator({
    db,
    clock,
    logger,
    hashKey: keyring.apiKeyHash,
    revocations,
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
    deploymentMode: config.DEPLOYMENT_MODE,
    sso: ssoVerifierFromConfig(config, clock),
  });
}

/** Builds every service the API uses. Nothing runs until `start()`. */
export function buildServices(deps: AppDeps): ServiceSet {
  const { config, db, redis, clock, logger, keyring } = deps;
  const metrics = deps.metrics ?? createMetrics(config.METRICS_ENABLED);
  const revocations = changesBus(deps, TOPICS.apiKeyRevoked);
  const policyChanges = changesBus(deps, TOPICS.policiesChanged);
  const webhookChanges = changesBus(deps, TOPICS.webhooksChanged);
  const policies: PolicyDeps = {
    db,
    clock,
    catalog: { names: deps.engine.registry.names, thresholdsOf: deps.engine.thresholdsOf },
    changes: policyChanges,
    cache: new PolicyCache(db, policyChanges, config.POLICY_CACHE_TTL_MS),
  };
  const allow = webhookAllowList(deps);
  const webhookPump = config.WEBHOOK_DELIVERY_ENABLED ? buildPump(deps, metrics, allow) : null;
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
  const scanWriter = scanWriterFor(deps, metrics, webhookPump);
  const authenticator = authenticatorFor(deps, revocations);
  const evidenceStorage = evidenceStorageFromConfig(config, publicUrlFromConfig(config), keyring.evidenceUpload);
  const identity: IdentityDeps = {
    db,
    clock,
    logger,
    provider: deps.identityProvider ?? identityProviderFromConfig(config),
    revocations,
    deploymentMode: config.DEPLOYMENT_MODE,
    inviteTtlHours: config.INVITE_TTL_HOURS,
    publicUrl: publicUrlFromConfig(config),
    mailer: config.SMTP_URL ? createInviteMailer(config.SMTP_URL, config.SMTP_FROM) : null,
    idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
    removeOrgFiles: (orgId) => evidenceStorage.removeOrg(orgId),
  };
  const services: AppServices = {
    ...deps,
    lifecycle: deps.lifecycle ?? new Lifecycle(),
    authenticator,
    rateLimiter,
    revocations,
    metrics,
    scanWriter,
    cursors: new CursorCodec(keyring.cursor),
    apiKeys: apiKeyServices(deps, revocations),
    identity,
    policies,
    webhooks,
    webhookPump,
    evidence: {
      db,
      clock,
      storage: evidenceStorage,
      ttlSeconds: config.EVIDENCE_UPLOAD_TTL_SECONDS,
    },
    scans: {
      db,
      engine: deps.engine,
      policies: policies.cache,
      writer: scanWriter,
      webhooks: webhooks.subscriptions,
      clock,
      metrics,
      deadlineMs: config.SCAN_DEADLINE_MS,
      retentionDays: config.SCAN_CONTENT_RETENTION_DAYS,
      endUserId: config.SCAN_END_USER_ID,
      budget: new ScanBudget(rateLimiter, config.RATE_LIMIT_SCAN_CHARS, config.RATE_LIMIT_WINDOW_SECONDS),
    },
    redaction: {
      db,
      clock,
      engine: deps.engine,
      hashKey: keyring.redactionHash,
      deadlineMs: config.SCAN_DEADLINE_MS,
    },
  };
  return {
    services,
    start: () => webhookPump?.start(),
    close: async () => {
      await scanWriter.drain();
      await webhookPump?.stop();
      await webhookChanges.close();
      await revocations.close();
      await policyChanges.close();
      await rateLimiter.close();
      identity.mailer?.close();
    },
  };
}

/** WEBHOOK_ALLOW_PRIVATE with the entries of its deprecated spelling WEBHOOK_UNSAFE_ALLOW_HOSTS added. */
function webhookAllowList({ config, logger }: Pick<AppDeps, 'config' | 'logger'>): AllowList {
  if (config.WEBHOOK_UNSAFE_ALLOW_HOSTS.trim())
    logger.warn('WEBHOOK_UNSAFE_ALLOW_HOSTS is deprecated: list its entries in WEBHOOK_ALLOW_PRIVATE');
  const entries = `${config.WEBHOOK_ALLOW_PRIVATE} ${config.WEBHOOK_UNSAFE_ALLOW_HOSTS}`.trim();
  const allow = AllowList.parse(entries);
  if (allow.size > 0)
    logger.info(
      { allow: entries },
      'webhooks may reach these internal receivers (metadata and link-local addresses stay refused)',
    );
  return allow;
}

function buildPump(deps: AppDeps, metrics: Metrics, allow: AllowList): DeliveryPump {
  const { config, db, clock, logger, keyring } = deps;
  return new DeliveryPump({
    db,
    clock,
    logger,
    keyring,
    sender: new HttpsSender({
      allow,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      extraCa: config.WEBHOOK_CA_FILE ? [readFileSync(config.WEBHOOK_CA_FILE, 'utf8')] : [],
      caOnly: config.WEBHOOK_CA_ONLY,
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
  });
}
