/**
 * Analytics test support: scans written straight into the store at chosen times, actions, surfaces,
 * findings and latencies (the rollups read nothing else), the rollup job run in-process, and the
 * same answers computed from the raw scans for comparison.
 */
import * as rollupAnalytics from '../../jobs/rollup-analytics.ts';
import type { JobContext } from '../../jobs/job.ts';
import { newTimedId } from '../../lib/ids.ts';
import { createLogger } from '../../lib/logger.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Db } from '../../store/db.ts';
import { insertScans, type ScanRow } from '../../store/scans.ts';
import type { TestApp } from '../support/harness.ts';

export const ACTIONS = ['allowed', 'flagged', 'warned', 'blocked'] as const;
export type Action = (typeof ACTIONS)[number];

export interface ScanSpec {
  at: Date;
  action?: Action;
  /** Observe mode: what the policy would have done (the caller got `allowed`). */
  observed?: Action;
  surface?: string;
  /** Detectors that reported an item; others may appear with no items. */
  detectors?: string[];
  latencyMs?: number;
}

/** A scan row as the scan service would store it, shaped by `spec`. */
export function scanRow(orgId: string, spec: ScanSpec): ScanRow {
  const hits = spec.detectors ?? [];
  const observed = spec.observed ?? null;
  return {
    org_id: orgId,
    id: newTimedId('scan', spec.at.getTime()),
    created_at: spec.at,
    kind: 'content',
    surface: spec.surface ?? 'user_message',
    tier: 'fast',
    agent_id: null,
    session_id: null,
    mcp_server: null,
    trace_id: null,
    end_user_id_hash: null,
    action: observed ? 'allowed' : (spec.action ?? 'allowed'),
    decision: { action: observed ? 'allowed' : (spec.action ?? 'allowed'), reason: 'default_action' },
    findings: [
      ...hits.map((d) => ({
        detector: d,
        items: [{ text: 'x', label: 'L', confidence: 0.9, source: 'model', span: [0, 1] }],
        frameworks: {},
      })),
      // a detector that ran and found nothing: never counted
      { detector: 'toxicity', items: [], frameworks: {} },
    ].filter((f, i, all) => all.findIndex((g) => g.detector === f.detector) === i),
    scores: {},
    content_stored: false,
    content: null,
    content_expires_at: null,
    content_chars: 10,
    latency_ms: spec.latencyMs ?? 5,
    api_key_id: null,
    request_id: null,
    mcp_tools: null,
    observed_action: observed,
  };
}

/** Stores the scans (in batches of 500, each one transaction like the group-commit writer's). */
export async function storeScans(db: Db, orgId: string, specs: readonly ScanSpec[]): Promise<ScanRow[]> {
  const rows = specs.map((s) => scanRow(orgId, s));
  for (let i = 0; i < rows.length; i += 500) await insertScans(db, rows.slice(i, i + 500));
  return rows;
}

/** A job context on `app`'s database (the job reads no clock but the watermark's timestamp). */
export function jobContext(app: TestApp, touch: () => Promise<void> = async () => undefined): JobContext {
  return {
    db: app.db,
    clock: systemClock,
    logger: createLogger('silent'),
    metrics: createMetrics(false),
    config: app.config,
    touch,
  };
}

/** Runs the rollup once. */
export const rollUp = (app: TestApp) => rollupAnalytics.run(jobContext(app));

/** The organization's rollup rows, as stored (for comparing re-runs). */
export async function bucketRows(db: Db, orgId: string) {
  const { rows } = await db.query(
    'SELECT bucket_start, total, allowed, flagged, warned, blocked, surfaces, detectors, latency FROM analytics_buckets WHERE org_id = $1 ORDER BY bucket_start',
    [orgId],
  );
  return rows;
}
