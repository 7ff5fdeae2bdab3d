/**
 * The durable echo: the platform's real limit for a scan request. It does what POST /v1/scans does
 * except detection: the service's Express stack (base app, request context, served on its
 * `serverOptions`), API-key authentication through the service's authenticator and its key cache, the
 * route chain with the same JSON body parsing and scan body validation, and one scan row — the row
 * the service stores for an allowed scan of that body that found nothing — committed through the
 * group-commit writer before it answers 201. No engine, no policy, no webhooks, no rate limiting.
 * The bare echo (echo-server.ts) does no durable work; the gap between the two is the price of
 * durability, and a scan run's ratio to this one is the share of the possible it reaches.
 */
import { Router, type Express } from 'express';
import { baseApp } from '../api/base-app.ts';
import type { AppDeps } from '../api/context.ts';
import { jsonBody } from '../api/middleware/body.ts';
import { identify } from '../api/middleware/identify.ts';
import { idempotency } from '../api/middleware/idempotency.ts';
import { problemHandler } from '../api/middleware/problem.ts';
import { Routes } from '../api/route.ts';
import { createScanBody } from '../api/routes/scans/schema.ts';
import { decideByThresholds } from '../engine/decision.ts';
import { createMetrics } from '../lib/metrics.ts';
import { TOPICS } from '../services/invalidation-bus.ts';
import { scannedOf, scanRow } from '../services/scans.ts';
import { storedScan } from '../services/scan-masking.ts';
import { authenticatorFor, changesBus, scanWriterFor } from '../server/services.ts';

export const DURABLE_ECHO_PATH = '/v1/durable-echo';

export interface DurableEcho {
  app: Express;
  /** Waits for the rows accepted so far to commit and closes the revocation bus; the deps belong to the caller. */
  close(): Promise<void>;
}

/** The durable echo's app on a process's deps (database, Redis, keys), built from the service's own parts. */
export function buildDurableEcho(
  deps: Pick<AppDeps, 'config' | 'db' | 'redis' | 'clock' | 'logger' | 'keyring'>,
): DurableEcho {
  const { config, db, clock, keyring } = deps;
  const metrics = createMetrics(config.METRICS_ENABLED);
  const revocations = changesBus(deps, TOPICS.apiKeyRevoked);
  const authenticator = authenticatorFor(deps, revocations);
  const writer = scanWriterFor(deps, metrics, null);
  // What the engine decides for a scan none of whose detectors found anything (no policy: built-in thresholds).
  const decision = decideByThresholds([], () => null);
  const retention = { retentionDays: config.SCAN_CONTENT_RETENTION_DAYS, endUserId: config.SCAN_END_USER_ID };
  const app = baseApp({ ...deps, metrics });
  app.use(identify(authenticator));
  const routes = new Routes({
    jsonBody: jsonBody(config.BODY_LIMIT_BYTES),
    idempotency: idempotency(db, clock, config.IDEMPOTENCY_TTL_HOURS, keyring.idempotencyResponse),
  });
  routes.post(DURABLE_ECHO_PATH, {
    operationId: 'durableEcho',
    access: 'scans:write',
    body: createScanBody(config.SCAN_MAX_TEXT_CHARS),
    replaceUnstorableIn: ['content'],
    responds: { status: 201, description: 'The allowed scan, stored.' },
    handler: async ({ req, res, principal, body }) => {
      const meta = { apiKeyId: principal.actor_id, requestId: req.id };
      const scanned = scannedOf(body);
      const verdict = { decision, findings: [], scores: {} };
      const row = scanRow(retention, principal.org_id, body, meta, clock.now(), scanned, verdict);
      await writer.write(storedScan(row));
      res.status(201).json({ id: row.id, action: row.action, content_chars: row.content_chars });
    },
  });
  // No probes or static files: the router for those stays unmounted.
  routes.mount(app, Router());
  app.use(problemHandler(metrics, config.BODY_LIMIT_BYTES));
  return {
    app,
    close: async () => {
      await writer.drain();
      await revocations.close();
    },
  };
}
