/**
 * Scans: run the engine on a validated request, store the result through the group-commit writer,
 * and read stored scans back. Routes call these; nothing here knows about HTTP.
 */
import type { Metrics } from '../lib/metrics.ts';
import { renderToolset } from '../engine/content.ts';
import type { DetectorResult } from '../engine/detector.ts';
import type { DetectorRun, ScanEngine } from '../engine/pipeline.ts';
import { shownDecision, type CompiledPolicy, type PolicyDecision } from '../engine/policy.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { Errors } from '../lib/errors.ts';
import { newTimedId } from '../lib/ids.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { ModelCancelledError, ModelDeadlineError, ModelOverloadedError } from '../engine/model-client.ts';
import type { Db } from '../store/db.ts';
import type { ScanWriter } from '../store/scan-writer.ts';
import { getScan as getScanRow, listScans as listScanRows, type ScanRow } from '../store/scans.ts';
import type { PolicyCache } from './policies/cache.ts';
import type { ScanBudget } from './scan-budget.ts';
import type { CreateScanInput, ListScansInput } from './scan-input.ts';
import { shapeFinding } from './scan-findings.ts';
import { storedScan } from './scan-masking.ts';
import { scanDeliveries, type SubscriptionCache } from './webhooks/subscriptions.ts';

export interface ScanDeps {
  db: Db;
  engine: ScanEngine;
  /** Resolves the policy that decides each scan. */
  policies: PolicyCache;
  writer: ScanWriter;
  /** Which webhooks a committed scan's event goes to. */
  webhooks: SubscriptionCache;
  clock: Clock;
  metrics: Metrics;
  deadlineMs: number;
  retentionDays: number;
  /** `keep`: the submitted end-user id is stored and returned; `drop`: only its hash (SCAN_END_USER_ID). */
  endUserId?: 'keep' | 'drop';
  /** Characters per window per credential (absent: only the request count limits). */
  budget?: ScanBudget;
}

export interface ScanMeta {
  apiKeyId: string;
  requestId: string;
  /** Streaming: each detector's result as it completes. */
  onResult?(run: DetectorRun): void;
  /** The policy `checkScanRequest` resolved (saves a second lookup); resolved here when absent. */
  policy?: CompiledPolicy | null;
  /** Detector results the caller computed already (engine ScanInput.precomputed). */
  precomputed?: ReadonlyMap<string, DetectorResult>;
  /** Aborted when the client goes away: the scan is called off (its waiting model work dropped), nothing stored. */
  signal?: AbortSignal;
}

/** SHA-256 of an end-user id, lowercase hex: the only form in which it is stored. */
export function hashEndUserId(id: string): string {
  return sha256Hex(id);
}

/**
 * The checks that need the registry and the policies, run before a stream starts so they still
 * answer with a plain problem+json. Resolves the policy that decides the scan (null: built-in thresholds).
 * @throws ProblemError 400 `scans.unknown_detector`, 404 `policies.not_found`.
 */
export async function checkScanRequest(
  deps: Pick<ScanDeps, 'engine' | 'policies'>,
  orgId: string,
  body: CreateScanInput,
): Promise<CompiledPolicy | null> {
  const { options } = body;
  if (options.detectors) {
    const unknown = options.detectors.filter((d) => !deps.engine.registry.get(d));
    if (unknown.length) throw Errors.unknownDetector(unknown, deps.engine.registry.names);
  }
  return deps.policies.resolve(orgId, options.policy_id);
}

/**
 * Scans the content and commits the scan; resolves only after the row is committed. `body` holds
 * only storable text: the route chain made its content so and refused anything else (api/storable-text.ts).
 * Resolves with the row as the caller's answer shows it: its items carry the text the caller sent, while
 * an uncaptured scan's stored row has them masked (`storedScan`, scan-masking.ts).
 * @throws ProblemError 400 `scans.unknown_detector`, 404 `policies.not_found`, 429 `rate_limit.characters_exceeded`,
 * 499 `request.client_closed` (meta.signal aborted), 503 `service.overloaded`, 504 `scans.deadline_exceeded`.
 */
export async function createScan(
  deps: ScanDeps,
  orgId: string,
  body: CreateScanInput,
  meta: ScanMeta,
): Promise<ScanRow> {
  const { engine, clock } = deps;
  const policy = meta.policy !== undefined ? meta.policy : await checkScanRequest(deps, orgId, body);
  const { options, context } = body;

  const started = performance.now();
  const now = clock.now();
  // Loaded while the engine runs (a cache hit is a map lookup).
  const subscriptions = deps.webhooks.of(orgId);
  subscriptions.catch(() => undefined);
  const scanned = scannedOf(body);
  const { text, mcpTools } = scanned;
  if (text !== null) await deps.budget?.take(meta.apiKeyId, text.length);
  let outcome;
  try {
    outcome = await engine.scan(
      {
        surface: body.surface,
        text,
        tier: options.tier,
        detectors: options.detectors,
        policy,
        precomputed: meta.precomputed,
        cacheScope: orgId,
        context: {
          agent_id: context.agent_id,
          session_id: context.session_id,
          mcp_server: context.mcp_server,
          mcp_tools: mcpTools,
        },
      },
      { deadlineAt: Date.now() + deps.deadlineMs, onResult: meta.onResult, signal: meta.signal, tenant: orgId },
    );
  } catch (err) {
    if (err instanceof ModelOverloadedError) throw Errors.overloaded(err.retryAfterSeconds);
    if (err instanceof ModelDeadlineError) throw Errors.scanDeadlineExceeded(deps.deadlineMs);
    if (err instanceof ModelCancelledError) throw Errors.clientClosed();
    throw err;
  }

  const findings = outcome.runs
    .filter((r) => r.result.items.length > 0)
    .map((r) => shapeFinding(engine.registry, r.result));
  const scores: Record<string, number> = {};
  for (const r of outcome.runs) scores[r.result.detector] = r.result.score;
  const row = scanRow(deps, orgId, body, meta, now, scanned, { decision: outcome.decision, findings, scores });
  row.latency_ms = Math.round((performance.now() - started) * 1000) / 1000;
  await deps.writer.write(storedScan(row), scanDeliveries(await subscriptions, row, outcome.decision.notify));
  deps.metrics.scanDuration.observe({ tier: options.tier }, (performance.now() - started) / 1000);
  deps.metrics.decisions.inc({ action: row.action, surface: row.surface });
  return row;
}

/** What a scan of `body` reads: the text (a toolset's rendering; null for an image) and a toolset's tools. */
export interface Scanned {
  text: string | null;
  mcpTools: { server: string; tool_name: string }[] | null;
}

/** The text a scan of `body` reads and the tools it lists. */
export function scannedOf({ content }: CreateScanInput): Scanned {
  if (content.type === 'text') return { text: content.text, mcpTools: null };
  if (content.type === 'toolset')
    return {
      text: renderToolset(content.tools),
      mcpTools: content.tools.map((t) => ({ server: t.server, tool_name: t.name })),
    };
  return { text: null, mcpTools: null };
}

/** What decided a scan, as its row stores it: the decision (its `notify` is dropped), findings, scores per detector. */
export interface ScanVerdict {
  decision: PolicyDecision;
  findings: unknown[];
  scores: Record<string, number>;
}

/**
 * The row a scan of `body` stores, as the caller's answer shows it (store it through `storedScan`).
 * Also what the benchmark's durable echo commits: an allowed scan's row without running the engine.
 */
export function scanRow(
  deps: Pick<ScanDeps, 'retentionDays' | 'endUserId'>,
  orgId: string,
  body: CreateScanInput,
  meta: Pick<ScanMeta, 'apiKeyId' | 'requestId'>,
  now: Date,
  { text, mcpTools }: Scanned,
  verdict: ScanVerdict,
): ScanRow {
  const { options, context, content } = body;
  // `notify` stays with the outcome (webhooks read it); the stored decision is what the API returns.
  const decision = shownDecision(verdict.decision);
  return {
    org_id: orgId,
    id: newTimedId('scan', now.getTime()),
    created_at: now,
    kind: body.kind,
    surface: body.surface,
    tier: options.tier,
    agent_id: context.agent_id ?? null,
    session_id: context.session_id ?? null,
    mcp_server: context.mcp_server ?? null,
    trace_id: context.trace_id ?? null,
    end_user_id: deps.endUserId === 'drop' ? null : (context.end_user_id ?? null),
    end_user_id_hash: context.end_user_id === undefined ? null : hashEndUserId(context.end_user_id),
    action: decision.action,
    decision,
    findings: verdict.findings,
    scores: verdict.scores,
    content_stored: options.capture,
    content: options.capture ? { ...content } : null,
    content_expires_at: options.capture ? new Date(now.getTime() + deps.retentionDays * 86_400_000) : null,
    content_chars: text?.length ?? 0,
    latency_ms: 0,
    api_key_id: meta.apiKeyId,
    request_id: meta.requestId,
    mcp_tools: mcpTools,
    observed_action: decision.observed_action ?? null,
  };
}

/** @throws ProblemError 404 `scans.not_found` when the id is unknown in this organization. */
export async function getScan(db: Db, orgId: string, id: string): Promise<ScanRow> {
  const row = await getScanRow(db, orgId, id);
  if (!row) throw Errors.scanNotFound(id);
  return row;
}

/** One page of the organization's scans, newest first; an `end_user_id` filter is hashed before the lookup. */
export async function listScans(
  db: Db,
  orgId: string,
  q: ListScansInput,
  beforeId: string | undefined,
): Promise<Page<ScanRow>> {
  const filters = {
    agent_id: q.agent_id,
    session_id: q.session_id,
    end_user_id_hash: q.end_user_id !== undefined ? hashEndUserId(q.end_user_id) : q.end_user_id_hash,
    action: q.action,
    surface: q.surface,
    since: q.since,
    until: q.until,
  };
  return fetchPage(q.limit, (n) => listScanRows(db, orgId, filters, beforeId, n));
}
