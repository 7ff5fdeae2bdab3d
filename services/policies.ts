/**
 * Policies: create, replace, delete (each with its management audit row in the same transaction),
 * read, the per-process cache the scan path resolves policies from, simulation and backtests.
 * Nothing here knows about HTTP.
 */
import type { Action, Thresholds } from '../engine/detector.ts';
import {
  compilePolicy,
  completeDetectorConfig,
  enforcedDecision,
  evaluatePolicy,
  type CompiledPolicy,
  type Condition,
  type DetectorCatalog,
  type DetectorConfig,
  type DetectorConfigInput,
  type McpToolRef,
  type PolicyDecision,
  type PolicyDocument,
  type PolicyMode,
  type ScanFacts,
  shownDecision,
} from '../engine/policy.ts';
import type { ScoredResult } from '../engine/decision.ts';
import type { Clock } from '../lib/clock.ts';
import { Errors } from '../lib/errors.ts';
import { idFloor, newId } from '../lib/ids.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Db, type Queryable } from '../store/db.ts';
import * as store from '../store/policies.ts';
import type { PolicyRow } from '../store/policies.ts';
import { getScan as getScanRow, type ScanRow } from '../store/scans.ts';
import type { Actor } from './api-keys.ts';
import type { InvalidationBus } from './invalidation-bus.ts';
import { OrgCache } from './org-cache.ts';

/** A validated create or replace body (api/routes/policies/schema.ts checks it). */
export interface PolicyInput {
  name: string;
  mode: PolicyMode;
  enabled: boolean;
  is_default?: boolean | undefined;
  rules: { id?: string | undefined; name: string; when: unknown; then: { action: Action; notify: string[] } }[];
  default_action: Action;
  detector_config: Record<string, DetectorConfigInput>;
  allowed_mcp_servers: string[];
  blocked_mcp_servers: string[];
  allowed_mcp_tools: McpToolRef[];
  blocked_mcp_tools: McpToolRef[];
}

/** The stored document of a validated body: rule ids assigned, detector thresholds completed. */
function documentOf(b: PolicyInput, catalog: DetectorCatalog, newRuleId: () => string): PolicyDocument {
  const detector_config: Record<string, DetectorConfig> = {};
  for (const [name, c] of Object.entries(b.detector_config))
    detector_config[name] = completeDetectorConfig(catalog.thresholdsOf(name), c);
  return {
    rules: b.rules.map((r) => ({
      id: r.id ?? newRuleId(),
      name: r.name,
      when: r.when as { all_of: Condition[] },
      then: { action: r.then.action, notify: r.then.notify },
    })),
    default_action: b.default_action,
    detector_config,
    allowed_mcp_servers: b.allowed_mcp_servers,
    blocked_mcp_servers: b.blocked_mcp_servers,
    allowed_mcp_tools: b.allowed_mcp_tools,
    blocked_mcp_tools: b.blocked_mcp_tools,
  };
}

export interface PolicyDeps {
  db: Db;
  clock: Clock;
  catalog: DetectorCatalog;
  /** Carries organization ids whose policies changed; every process's cache listens. */
  changes: InvalidationBus;
  cache: PolicyCache;
}

/**
 * Creates a policy. `is_default: true` makes it the organization's default (the previous default,
 * if any, stops being one, recorded in the audit log).
 */
export async function createPolicy(
  deps: PolicyDeps,
  orgId: string,
  body: PolicyInput,
  actor: Actor,
): Promise<PolicyRow> {
  const now = deps.clock.now();
  const row: PolicyRow = {
    org_id: orgId,
    id: newId('policy', now.getTime()),
    revision_id: newId('policyRevision', now.getTime()),
    name: body.name,
    mode: body.mode,
    enabled: body.enabled,
    is_default: body.is_default ?? false,
    document: documentOf(body, deps.catalog, () => newId('policyRule', now.getTime())),
    created_at: now,
    updated_at: now,
  };
  const created = await withTransaction(deps.db, async (tx) => {
    // At most one default per organization (a unique index): clear the old one first.
    if (row.is_default) await takeDefault(tx, orgId, row.id, actor, now);
    const inserted = await store.insertPolicy(tx, row);
    await audit(tx, orgId, actor, now, row.id, `created policy ${describe(inserted)}`);
    return inserted;
  });
  await deps.changes.publish(orgId);
  return created;
}

/**
 * Replaces a policy whole (a new `revision_id`; no history). `is_default` absent keeps the current
 * value, so a replace built from scratch never silently drops the organization's default.
 * @throws ProblemError 404 `policies.not_found`.
 */
export async function replacePolicy(
  deps: PolicyDeps,
  orgId: string,
  id: string,
  body: PolicyInput,
  actor: Actor,
): Promise<PolicyRow> {
  const now = deps.clock.now();
  const replaced = await withTransaction(deps.db, async (tx) => {
    const old = await store.getPolicy(tx, orgId, id, true);
    if (!old) throw Errors.policyNotFound(id);
    const oldRules = new Map(old.document.rules.map((r) => [r.id, r]));
    const next: PolicyRow = {
      ...old,
      revision_id: newId('policyRevision', now.getTime()),
      name: body.name,
      mode: body.mode,
      enabled: body.enabled,
      is_default: body.is_default ?? old.is_default,
      document: documentOf(body, deps.catalog, () => newId('policyRule', now.getTime())),
      updated_at: now,
    };
    if (next.is_default && !old.is_default) await takeDefault(tx, orgId, id, actor, now);
    const row = (await store.replacePolicy(tx, next))!;
    await audit(
      tx,
      orgId,
      actor,
      now,
      id,
      `replaced policy ${JSON.stringify(old.name)} (revision ${old.revision_id} → ${row.revision_id}): ${changes(old, row, oldRules)}`,
    );
    return row;
  });
  await deps.changes.publish(orgId);
  return replaced;
}

/** @throws ProblemError 404 `policies.not_found`. */
export async function deletePolicy(deps: PolicyDeps, orgId: string, id: string, actor: Actor): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const gone = await store.deletePolicy(tx, orgId, id);
    if (!gone) throw Errors.policyNotFound(id);
    await audit(
      tx,
      orgId,
      actor,
      now,
      id,
      `deleted policy ${JSON.stringify(gone.name)}${gone.is_default ? ' (it was the default: scans now get the built-in thresholds)' : ''}`,
    );
  });
  await deps.changes.publish(orgId);
}

/** @throws ProblemError 404 `policies.not_found`. */
export async function getPolicy(db: Queryable, orgId: string, id: string): Promise<PolicyRow> {
  const row = await store.getPolicy(db, orgId, id);
  if (!row) throw Errors.policyNotFound(id);
  return row;
}

export async function listPolicies(
  db: Queryable,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<PolicyRow>> {
  return fetchPage(limit, (n) => store.listPolicies(db, orgId, { beforeId, limit: n }));
}

async function takeDefault(tx: Queryable, orgId: string, id: string, actor: Actor, now: Date): Promise<void> {
  for (const was of await store.clearDefault(tx, orgId, id))
    await audit(tx, orgId, actor, now, was, `policy ${was} is no longer the default: ${id} is`);
}

function audit(q: Queryable, orgId: string, actor: Actor, now: Date, id: string, summary: string): Promise<void> {
  return insertManagementAudit(q, orgId, {
    created: now,
    actorId: actor.id,
    requestId: actor.requestId,
    resourceType: 'policy',
    resourceId: id,
    changeSummary: summary,
  });
}

function describe(p: PolicyRow): string {
  const d = p.document;
  const lists =
    d.allowed_mcp_servers.length +
    d.blocked_mcp_servers.length +
    d.allowed_mcp_tools.length +
    d.blocked_mcp_tools.length;
  return `${JSON.stringify(p.name)} (${p.mode}, ${p.enabled ? 'enabled' : 'disabled'}${p.is_default ? ', default' : ''}, ${d.rules.length} rules, default_action ${d.default_action}, detector_config [${Object.keys(d.detector_config).join(', ')}], ${lists} MCP list entries)`;
}

/** What a replace changed, field by field, in words. */
function changes(
  old: PolicyRow,
  next: PolicyRow,
  oldRules: Map<string, PolicyRow['document']['rules'][number]>,
): string {
  const out: string[] = [];
  const scalar = (name: string, a: unknown, b: unknown) =>
    a !== b && out.push(`${name} ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
  scalar('name', old.name, next.name);
  scalar('mode', old.mode, next.mode);
  scalar('enabled', old.enabled, next.enabled);
  scalar('is_default', old.is_default, next.is_default);
  scalar('default_action', old.document.default_action, next.document.default_action);
  const newIds = new Set(next.document.rules.map((r) => r.id));
  const added = next.document.rules.filter((r) => !oldRules.has(r.id)).map((r) => r.id);
  const removed = [...oldRules.keys()].filter((id) => !newIds.has(id));
  const edited = next.document.rules
    .filter((r) => oldRules.has(r.id) && JSON.stringify(oldRules.get(r.id)) !== JSON.stringify(r))
    .map((r) => r.id);
  const order =
    JSON.stringify(old.document.rules.map((r) => r.id).filter((id) => newIds.has(id))) !==
    JSON.stringify(next.document.rules.map((r) => r.id).filter((id) => oldRules.has(id)));
  if (added.length) out.push(`rules added [${added.join(', ')}]`);
  if (removed.length) out.push(`rules removed [${removed.join(', ')}]`);
  if (edited.length) out.push(`rules changed [${edited.join(', ')}]`);
  if (order) out.push('rules reordered');
  for (const f of [
    'detector_config',
    'allowed_mcp_servers',
    'blocked_mcp_servers',
    'allowed_mcp_tools',
    'blocked_mcp_tools',
  ] as const) {
    if (JSON.stringify(old.document[f]) !== JSON.stringify(next.document[f])) out.push(`${f} changed`);
  }
  return out.length ? out.join('; ') : 'no field changed';
}

/**
 * The scan path's view of policies: compiled, per organization, through an `OrgCache` (reloaded after
 * `ttlMs`, dropped at once when the organization's policies change, misses cached too).
 */
export class PolicyCache {
  private readonly cache: OrgCache<CompiledPolicy | null>;

  constructor(
    private readonly db: Db,
    changes: InvalidationBus,
    ttlMs: number,
    maxOrgs = 10_000,
  ) {
    this.cache = new OrgCache(changes, ttlMs, maxOrgs);
  }

  /**
   * The policy that decides a scan: `policyId` when given (404 when unknown; when disabled, the
   * default applies instead), else the organization's default when it is enabled, else null
   * (built-in thresholds).
   * @throws ProblemError 404 `policies.not_found`.
   */
  async resolve(orgId: string, policyId: string | undefined): Promise<CompiledPolicy | null> {
    if (policyId !== undefined) {
      const named = await this.load(orgId, policyId);
      if (!named) throw Errors.policyNotFound(policyId);
      if (named.enabled) return named;
    }
    const fallback = await this.load(orgId, '');
    return fallback?.enabled ? fallback : null;
  }

  /** `key` '' is the default policy. */
  private load(orgId: string, key: string): Promise<CompiledPolicy | null> {
    return this.cache.get(orgId, key, () =>
      (key === '' ? store.getDefaultPolicy(this.db, orgId) : store.getPolicy(this.db, orgId, key)).then((row) =>
        row ? compilePolicy(row) : null,
      ),
    );
  }
}

/** A stored scan's facts: its scores, with each detector's finding items. */
export function factsOfScan(
  row: Pick<
    ScanRow,
    'surface' | 'agent_id' | 'session_id' | 'mcp_server' | 'mcp_tools' | 'content_chars' | 'scores' | 'findings'
  >,
): ScanFacts {
  const items = new Map<string, ScoredResult['items']>();
  for (const f of row.findings as { detector: string; items: ScoredResult['items'] }[]) items.set(f.detector, f.items);
  const results: ScoredResult[] = [];
  for (const [detector, score] of Object.entries(row.scores))
    results.push({ detector, score, items: items.get(detector) ?? [] });
  return {
    surface: row.surface,
    agent_id: row.agent_id,
    session_id: row.session_id,
    mcp_server: row.mcp_server,
    mcp_tools: row.mcp_tools,
    content_length: row.content_chars,
    results,
  };
}

export interface SimulateInput {
  scan_id?: string | undefined;
  surface?: string | undefined;
  findings?:
    { detector: string; score?: number | undefined; items: { label: string; confidence: number }[] }[] | undefined;
  context?:
    { agent_id?: string | undefined; session_id?: string | undefined; mcp_server?: string | undefined } | undefined;
  content_length?: number | undefined;
}

export interface Simulation {
  decision: PolicyDecision;
  matched_rule: { rule_id: string; rule_name: string } | null;
  diff_from_current: { previous_action: Action; previous_revision_id: string | null; new_action: Action };
}

/**
 * What `policyId` would decide, persisting nothing. With `scan_id`, the stored scan's facts, each
 * part overridden by the body's `surface`, `findings`, `context`, `content_length` when given, and
 * "current" is the decision the scan got. Without, the body's facts, and "current" is what the
 * organization's scans get now (its default policy, or the built-in thresholds).
 * @throws ProblemError 404 `policies.not_found`, `scans.not_found`.
 */
export async function simulatePolicy(
  deps: PolicyDeps,
  orgId: string,
  policyId: string,
  input: SimulateInput,
  builtin: (d: string) => Thresholds,
): Promise<Simulation> {
  const policy = compilePolicy(await getPolicy(deps.db, orgId, policyId));
  let facts: ScanFacts;
  let previous: { action: Action; revision: string | null } | null = null;
  if (input.scan_id !== undefined) {
    const scan = await getScanRow(deps.db, orgId, input.scan_id);
    if (!scan) throw Errors.scanNotFound(input.scan_id);
    facts = factsOfScan(scan);
    previous = { action: scan.action as Action, revision: (scan.decision.policy_revision_id as string | null) ?? null };
  } else
    facts = {
      surface: input.surface!,
      agent_id: null,
      session_id: null,
      mcp_server: null,
      mcp_tools: null,
      content_length: 0,
      results: [],
    };
  if (input.surface !== undefined) facts.surface = input.surface;
  if (input.findings !== undefined)
    facts.results = input.findings.map((f) => ({
      detector: f.detector,
      items: f.items,
      score: f.score ?? Math.max(0, ...f.items.map((i) => i.confidence)),
    }));
  if (input.context !== undefined) {
    facts.agent_id = input.context.agent_id ?? null;
    facts.session_id = input.context.session_id ?? null;
    facts.mcp_server = input.context.mcp_server ?? null;
  }
  if (input.content_length !== undefined) facts.content_length = input.content_length;
  if (!previous) {
    const current = await deps.cache.resolve(orgId, undefined);
    previous = { action: evaluatePolicy(current, facts, builtin).action, revision: current?.revision_id ?? null };
  }
  const decision = evaluatePolicy(policy, facts, builtin);
  const rule =
    decision.matched_rule_id === null ? undefined : policy.rules.find((r) => r.id === decision.matched_rule_id);
  return {
    decision: shownDecision(decision),
    matched_rule: rule ? { rule_id: rule.id, rule_name: rule.name } : null,
    diff_from_current: {
      previous_action: previous.action,
      previous_revision_id: previous.revision,
      new_action: decision.action,
    },
  };
}

/** A validated backtest body (api/routes/policies/schema.ts checks it). */
export interface BacktestInput {
  since: Date;
  until: Date;
  samples: number;
  max_scans: number;
}

export interface Backtest {
  policy_id: string;
  revision_id: string;
  window: { since: string; until: string };
  scans_evaluated: number;
  changed: number;
  /** Set when `max_scans` stopped the run before the window's end: the last scan evaluated. */
  truncated_at_scan_id: string | null;
  transitions: { previous_action: Action; new_action: Action; count: number; sample_scan_ids: string[] }[];
  elapsed_ms: number;
}

const BACKTEST_BATCH = 5_000;
const ORDER: Record<Action, number> = { allowed: 0, warned: 1, flagged: 2, blocked: 3 };

function usesLabels(c: Condition): boolean {
  if ('all_of' in c) return c.all_of.some(usesLabels);
  if ('any_of' in c) return c.any_of.some(usesLabels);
  if ('not' in c) return usesLabels(c.not);
  return 'label_in' in c;
}

/**
 * Evaluates the policy, as `enforce` would apply it, over the organization's stored scans in
 * [since, until), oldest first, in keyset batches (memory stays bounded whatever the window), and
 * counts scans per (action they got → action under this policy), with up to `samples` scan ids each.
 * @throws ProblemError 404 `policies.not_found`.
 */
export async function backtestPolicy(
  deps: PolicyDeps,
  orgId: string,
  policyId: string,
  input: BacktestInput,
  builtin: (d: string) => Thresholds,
): Promise<Backtest> {
  const started = performance.now();
  const policy = compilePolicy(await getPolicy(deps.db, orgId, policyId));
  // Finding items are only read by label conditions: without any, the scores decide (and are smaller).
  const needItems = policy.document.rules.some((r) => usesLabels(r.when));
  const columns = `id, surface, action, agent_id, session_id, mcp_server, mcp_tools, content_chars, scores${needItems ? ', findings' : ''}`;
  const counts = new Map<
    string,
    { previous_action: Action; new_action: Action; count: number; sample_scan_ids: string[] }
  >();
  let evaluated = 0;
  let changed = 0;
  // The first batch starts at the window's floor (inclusive), each next one after the last id seen.
  let from = idFloor('scan', input.since);
  let op = '>=';
  const before = idFloor('scan', input.until);
  let truncated: string | null = null;
  for (;;) {
    const want = Math.min(BACKTEST_BATCH, input.max_scans - evaluated);
    const { rows } = await deps.db.query<ScanRow>(
      `SELECT ${columns} FROM scans WHERE org_id = $1 AND id ${op} $2 AND id < $3 ORDER BY id LIMIT $4`,
      [orgId, from, before, want],
    );
    for (const row of rows) {
      if (!needItems) row.findings = [];
      const next = enforcedDecision(policy, factsOfScan(row), builtin).action;
      const prev = row.action as Action;
      const key = `${prev}>${next}`;
      let c = counts.get(key);
      if (!c) counts.set(key, (c = { previous_action: prev, new_action: next, count: 0, sample_scan_ids: [] }));
      c.count++;
      if (c.sample_scan_ids.length < input.samples) c.sample_scan_ids.push(row.id);
      if (prev !== next) changed++;
    }
    evaluated += rows.length;
    if (rows.length < want) break;
    from = rows.at(-1)!.id;
    op = '>';
    if (evaluated >= input.max_scans) {
      const { rows: more } = await deps.db.query(
        'SELECT 1 FROM scans WHERE org_id = $1 AND id > $2 AND id < $3 LIMIT 1',
        [orgId, from, before],
      );
      if (more.length) truncated = rows.at(-1)!.id;
      break;
    }
  }
  const transitions = [...counts.values()].sort(
    (a, b) => ORDER[b.previous_action] - ORDER[a.previous_action] || ORDER[b.new_action] - ORDER[a.new_action],
  );
  return {
    policy_id: policy.id,
    revision_id: policy.revision_id,
    window: { since: input.since.toISOString(), until: input.until.toISOString() },
    scans_evaluated: evaluated,
    changed,
    truncated_at_scan_id: truncated,
    transitions,
    elapsed_ms: Math.round(performance.now() - started),
  };
}
