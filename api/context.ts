import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/crypto.ts';
import type { CursorCodec } from '../lib/cursor.ts';
import type { ProblemError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { Redis } from '../lib/redis.ts';
import type { ApiKeyDeps } from '../services/api-keys.ts';
import type { PolicyDeps } from '../services/policies/deps.ts';
import type { Authenticator } from '../services/authenticator.ts';
import type { IdentityDeps } from '../services/identity.ts';
import type { IdentityProvider } from '../services/identity-provider.ts';
import type { Principal, SessionIdentity } from '../services/principal.ts';
import type { RateLimiter } from '../services/rate-limiter.ts';
import type { RateBudget } from './middleware/rate-limit.ts';
import type { InvalidationBus } from '../services/invalidation-bus.ts';
import type { Db } from '../store/db.ts';
import type { Lifecycle } from '../services/readiness.ts';
import type { ScanEngine } from '../engine/pipeline.ts';
import type { ScanWriter } from '../store/scan-writer.ts';
import type { Metrics } from '../lib/metrics.ts';
import type { DeliveryPump } from '../services/webhooks/pump.ts';
import type { LookupAll, LookupAllWithOptions } from '../services/webhooks/url-guard.ts';
import type { WebhookDeps } from '../services/webhooks/subscriptions.ts';
import type { ScanDeps } from '../services/scans.ts';
import type { RedactionDeps } from '../services/redaction/redactor.ts';
import type { EvidenceDeps } from '../services/evidence/uploads.ts';

/** Everything the app needs, built by the runtime (or a test) and passed in. */
export interface AppDeps {
  config: Readonly<Config>;
  db: Db;
  redis: Redis | null;
  clock: Clock;
  logger: Logger;
  keyring: Keyring;
  /** The detection engine (its model pool belongs to the caller, like the database pool). */
  engine: ScanEngine;
  /** The metrics registry the engine and pool already report to; the app creates one when absent. */
  metrics?: Metrics;
  /** Set when the process starts stopping (`/readyz` then answers 503); the app creates one when absent. */
  lifecycle?: Lifecycle;
  /** Tests only: an identity provider in place of the configured one (a failing one, for the no-write checks). */
  identityProvider?: IdentityProvider;
  /** Tests only: the resolvers behind webhook URL checks at registration and at delivery (DNS rebinding). */
  webhookDns?: { register?: LookupAll; deliver?: LookupAllWithOptions };
}

/** The services a process builds once from its deps (server/services.ts) and the app is mounted on. */
export interface AppServices extends AppDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  revocations: InvalidationBus;
  cursors: CursorCodec;
  metrics: Metrics;
  lifecycle: Lifecycle;
  apiKeys: ApiKeyDeps;
  identity: IdentityDeps;
  policies: PolicyDeps;
  scanWriter: ScanWriter;
  webhooks: WebhookDeps;
  /** Sends webhook deliveries; null when WEBHOOK_DELIVERY_ENABLED is false. */
  webhookPump: DeliveryPump | null;
  scans: ScanDeps;
  /** The organization redaction policy and the redactor labeled events are stored through. */
  redaction: RedactionDeps;
  /** Evidence uploads: the configured storage backend (local files or S3) and the URL lifetime. */
  evidence: EvidenceDeps;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      principal?: Principal;
      /** A verified SSO session token's identity, with or without an organization principal. */
      session?: SessionIdentity;
      /** Why the presented credential was refused; raised only by routes that need a principal. */
      authError?: ProblemError;
      rawBody?: Buffer;
      /** The budget a request's own signed credential named (a signed upload URL), spent instead of its address's. */
      budget?: RateBudget;
      apiVersion: string;
      startedAt: bigint;
    }
  }
}
