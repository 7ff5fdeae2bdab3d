/**
 * Policies turn a scan's findings into the organization's decision. Pure: no HTTP, no SQL.
 *
 * Evaluation order (docs/policies.md):
 *   1. MCP lists — a blocked server or tool, or one outside a non-empty allow list → `blocked`;
 *   2. rules, in order — the first whose `when` matches decides (`rule_matched`);
 *   3. `detector_config` thresholds (built-in thresholds for detectors it does not configure) —
 *      the most severe action any detector crosses (`score_threshold`);
 *   4. `default_action` (`default_action`).
 * `observe` mode never blocks: the caller gets `allowed` (`observe_mode`), and the decision carries
 * the would-be action as `observed_action` / `observed_reason`.
 */
import type { Thresholds } from '../inference/manifest.ts';
import type { Action } from './detector.ts';
import { decideByThresholds, scoringItem, type Decision, type ScoredResult } from './decision.ts';

export type ContextField = 'agent_id' | 'session_id' | 'mcp_server';
export const CONTEXT_FIELDS: readonly ContextField[] = ['agent_id', 'session_id', 'mcp_server'];

/**
 * The rule condition grammar. Exactly one shape per object:
 * - combinators: `{all_of: [...]}`, `{any_of: [...]}`, `{not: condition}`;
 * - detector score: `{detector, score_above}` (strictly greater), `{detector, score_below}` (strictly less);
 * - finding labels: `{detector, label_in: [...], min_confidence?}` (some item of that detector);
 * - surface: `{surface_in: [...]}`, `{surface_not_in: [...]}`;
 * - context: `{context: field, equals}`, `{context: field, prefix}`, `{context: field, in: [...]}`,
 *   `{context: field, present: boolean}`;
 * - content length in characters: `{content_length_above: n}`, `{content_length_below: n}`.
 */
export type Condition =
  | { all_of: Condition[] }
  | { any_of: Condition[] }
  | { not: Condition }
  | { detector: string; score_above: number }
  | { detector: string; score_below: number }
  | { detector: string; label_in: string[]; min_confidence?: number }
  | { surface_in: string[] }
  | { surface_not_in: string[] }
  | { context: ContextField; equals: string }
  | { context: ContextField; prefix: string }
  | { context: ContextField; in: string[] }
  | { context: ContextField; present: boolean }
  | { content_length_above: number }
  | { content_length_below: number };

export interface PolicyRule {
  id: string;
  name: string;
  when: { all_of: Condition[] };
  then: { action: Action; notify: string[] };
}

export interface DetectorConfig extends Thresholds {
  enabled: boolean;
}

/** A `detector_config` entry as written: thresholds left out take the detector's built-in values. */
export interface DetectorConfigInput {
  enabled: boolean;
  warn_above?: number | undefined;
  flag_above?: number | undefined;
  block_above?: number | undefined;
}

/** The complete entry: the written thresholds over the built-in ones. */
export function completeDetectorConfig(builtin: Thresholds, c: DetectorConfigInput): DetectorConfig {
  return {
    enabled: c.enabled,
    warn_above: c.warn_above ?? builtin.warn_above,
    flag_above: c.flag_above ?? builtin.flag_above,
    block_above: c.block_above ?? builtin.block_above,
  };
}

/** What validating and completing a policy needs to know of the detectors. */
export interface DetectorCatalog {
  names: readonly string[];
  thresholdsOf(name: string): Thresholds;
}

export interface McpToolRef {
  server: string;
  tool_name: string;
}

/** The decision-making part of a policy (what `revision_id` versions). */
export interface PolicyDocument {
  rules: PolicyRule[];
  default_action: Action;
  detector_config: Record<string, DetectorConfig>;
  allowed_mcp_servers: string[];
  blocked_mcp_servers: string[];
  allowed_mcp_tools: McpToolRef[];
  blocked_mcp_tools: McpToolRef[];
}

export type PolicyMode = 'enforce' | 'observe';

export interface PolicyIdentity {
  id: string;
  revision_id: string;
  name: string;
  mode: PolicyMode;
}

/** What evaluation reads about one scan: a live scan and a stored one give the same facts. */
export interface ScanFacts {
  surface: string;
  agent_id: string | null;
  session_id: string | null;
  mcp_server: string | null;
  /** Toolset scans: the tools listed; null otherwise. */
  mcp_tools: readonly McpToolRef[] | null;
  /** Characters of the scanned text. */
  content_length: number;
  /** One per detector that ran. */
  results: readonly ScoredResult[];
}

/** A policy decision: the spec's Decision plus, in observe mode, what enforce would have done. */
export interface PolicyDecision extends Decision {
  observed_action?: Action;
  observed_reason?: string;
  /** The matched rule's `notify` list (not part of the response; webhooks read it). */
  notify?: string[];
}

/** The decision as the API returns and stores it: without `notify`, which only webhooks read. */
export function shownDecision(d: PolicyDecision): Omit<PolicyDecision, 'notify'> {
  const { notify: _notify, ...shown } = d;
  return shown;
}

/** The condition matched; `finding` is the `<detector>:<label>` (or `<detector>`) that made it match, if any. */
type Match = { finding: string | null };
type Test = (f: ScanFacts) => Match | null;

const MATCH_NO_FINDING: Match = Object.freeze({ finding: null });

export interface CompiledRule {
  id: string;
  name: string;
  action: Action;
  notify: string[];
  test: Test;
}

/** A policy ready to evaluate: conditions compiled to closures, lists to sets. */
export interface CompiledPolicy extends PolicyIdentity {
  enabled: boolean;
  document: PolicyDocument;
  rules: CompiledRule[];
  allowedServers: ReadonlySet<string>;
  blockedServers: ReadonlySet<string>;
  allowedTools: ReadonlySet<string>;
  blockedTools: ReadonlySet<string>;
}

const toolKey = (server: string, tool: string) => `${server}\u0000${tool}`;

export function compilePolicy(p: PolicyIdentity & { enabled: boolean; document: PolicyDocument }): CompiledPolicy {
  const d = p.document;
  return {
    id: p.id,
    revision_id: p.revision_id,
    name: p.name,
    mode: p.mode,
    enabled: p.enabled,
    document: d,
    rules: d.rules.map((r) => ({
      id: r.id,
      name: r.name,
      action: r.then.action,
      notify: r.then.notify,
      test: compileCondition(r.when),
    })),
    allowedServers: new Set(d.allowed_mcp_servers),
    blockedServers: new Set(d.blocked_mcp_servers),
    allowedTools: new Set(d.allowed_mcp_tools.map((t) => toolKey(t.server, t.tool_name))),
    blockedTools: new Set(d.blocked_mcp_tools.map((t) => toolKey(t.server, t.tool_name))),
  };
}

function resultOf(f: ScanFacts, detector: string): ScoredResult | undefined {
  for (const r of f.results) if (r.detector === detector) return r;
  return undefined;
}

/** `<detector>:<label>` of the item behind the result's score (`scoringItem`), or `<detector>`. */
function findingOf(r: ScoredResult): string {
  const item = scoringItem(r);
  return item ? `${r.detector}:${item.label}` : r.detector;
}

/** Compiles a condition (already validated by the API schema) into a closure. */
export function compileCondition(c: Condition): Test {
  if ('all_of' in c) {
    const parts = c.all_of.map(compileCondition);
    return (f) => {
      let finding: string | null = null;
      for (const t of parts) {
        const m = t(f);
        if (!m) return null;
        finding ??= m.finding;
      }
      return finding === null ? MATCH_NO_FINDING : { finding };
    };
  }
  if ('any_of' in c) {
    const parts = c.any_of.map(compileCondition);
    return (f) => {
      for (const t of parts) {
        const m = t(f);
        if (m) return m;
      }
      return null;
    };
  }
  if ('not' in c) {
    // What made a negated condition fail is not a finding of the match.
    const inner = compileCondition(c.not);
    return (f) => (inner(f) ? null : MATCH_NO_FINDING);
  }
  if ('score_above' in c) {
    const { detector, score_above: limit } = c;
    return (f) => {
      const r = resultOf(f, detector);
      return r && r.score > limit ? { finding: findingOf(r) } : null;
    };
  }
  if ('score_below' in c) {
    // A detector that did not run has no score: the condition does not hold.
    const { detector, score_below: limit } = c;
    return (f) => {
      const r = resultOf(f, detector);
      return r && r.score < limit ? MATCH_NO_FINDING : null;
    };
  }
  if ('label_in' in c) {
    const { detector } = c;
    const labels = new Set(c.label_in);
    const min = c.min_confidence ?? 0;
    return (f) => {
      const r = resultOf(f, detector);
      if (!r) return null;
      let best: ScoredResult['items'][number] | null = null;
      for (const i of r.items)
        if (labels.has(i.label) && i.confidence >= min && (!best || i.confidence > best.confidence)) best = i;
      return best ? { finding: `${detector}:${best.label}` } : null;
    };
  }
  if ('surface_in' in c) {
    const set = new Set(c.surface_in);
    return (f) => (set.has(f.surface) ? MATCH_NO_FINDING : null);
  }
  if ('surface_not_in' in c) {
    const set = new Set(c.surface_not_in);
    return (f) => (set.has(f.surface) ? null : MATCH_NO_FINDING);
  }
  if ('content_length_above' in c) {
    const n = c.content_length_above;
    return (f) => (f.content_length > n ? MATCH_NO_FINDING : null);
  }
  if ('content_length_below' in c) {
    const n = c.content_length_below;
    return (f) => (f.content_length < n ? MATCH_NO_FINDING : null);
  }
  const field = c.context;
  if ('equals' in c) {
    const v = c.equals;
    return (f) => (f[field] === v ? MATCH_NO_FINDING : null);
  }
  if ('prefix' in c) {
    const v = c.prefix;
    return (f) => (f[field]?.startsWith(v) ? MATCH_NO_FINDING : null);
  }
  if ('in' in c) {
    const set = new Set(c.in);
    return (f) => {
      const v = f[field];
      return v !== null && set.has(v) ? MATCH_NO_FINDING : null;
    };
  }
  const want = c.present;
  return (f) => ((f[field] !== null) === want ? MATCH_NO_FINDING : null);
}

/** Step 1: the MCP lists. Servers are the context's `mcp_server` and each listed tool's server. */
function checkMcp(p: CompiledPolicy, f: ScanFacts): { reason: string; finding: string } | null {
  const servers: string[] = [];
  if (f.mcp_server !== null) servers.push(f.mcp_server);
  if (f.mcp_tools) for (const t of f.mcp_tools) if (!servers.includes(t.server)) servers.push(t.server);
  for (const s of servers) if (p.blockedServers.has(s)) return { reason: 'mcp_server_blocked', finding: `mcp:${s}` };
  if (p.allowedServers.size > 0)
    for (const s of servers)
      if (!p.allowedServers.has(s)) return { reason: 'mcp_server_not_allowed', finding: `mcp:${s}` };
  if (f.mcp_tools) {
    for (const t of f.mcp_tools)
      if (p.blockedTools.has(toolKey(t.server, t.tool_name)))
        return { reason: 'mcp_tool_blocked', finding: `mcp:${t.server}/${t.tool_name}` };
    if (p.allowedTools.size > 0) {
      for (const t of f.mcp_tools)
        if (!p.allowedTools.has(toolKey(t.server, t.tool_name)))
          return { reason: 'mcp_tool_not_allowed', finding: `mcp:${t.server}/${t.tool_name}` };
    }
  }
  return null;
}

/**
 * The decision for `facts` under `policy`, or under the built-in thresholds when `policy` is null.
 * @param builtin a detector's built-in thresholds (the manifest's calibrated defaults).
 */
export function evaluatePolicy(
  policy: CompiledPolicy | null,
  f: ScanFacts,
  builtin: (detector: string) => Thresholds,
): PolicyDecision {
  if (!policy) return decideByThresholds(f.results, (r) => r.thresholds ?? builtin(r.detector));
  const enforced = enforcedDecision(policy, f, builtin);
  if (policy.mode === 'enforce') return enforced;
  return {
    ...enforced,
    action: 'allowed',
    reason: 'observe_mode',
    observed_action: enforced.action,
    observed_reason: enforced.reason,
  };
}

/** Steps 1–4, as `enforce` mode applies them (also what backtests compare). */
export function enforcedDecision(
  p: CompiledPolicy,
  f: ScanFacts,
  builtin: (detector: string) => Thresholds,
): PolicyDecision {
  const base = { policy_id: p.id, policy_revision_id: p.revision_id };
  const mcp = checkMcp(p, f);
  if (mcp)
    return { action: 'blocked', reason: mcp.reason, ...base, matched_rule_id: null, triggering_finding: mcp.finding };
  for (const rule of p.rules) {
    const m = rule.test(f);
    if (m)
      return {
        action: rule.action,
        reason: 'rule_matched',
        ...base,
        matched_rule_id: rule.id,
        triggering_finding: m.finding,
        notify: rule.notify,
      };
  }
  const config = p.document.detector_config;
  const byThresholds = decideByThresholds(f.results, (r) => {
    const c = config[r.detector];
    if (c) return c.enabled ? c : null;
    return r.thresholds ?? builtin(r.detector);
  });
  if (byThresholds.action !== 'allowed') return { ...byThresholds, ...base };
  return {
    action: p.document.default_action,
    reason: 'default_action',
    ...base,
    matched_rule_id: null,
    triggering_finding: null,
  };
}

/** Detectors a policy switches off: they do not run unless the scan names them. */
export function disabledDetectors(p: CompiledPolicy | null): ReadonlySet<string> {
  if (!p) return EMPTY;
  const out = new Set<string>();
  for (const [name, c] of Object.entries(p.document.detector_config)) if (!c.enabled) out.add(name);
  return out;
}

const EMPTY: ReadonlySet<string> = new Set();
