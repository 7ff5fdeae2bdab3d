import type { Action } from '../../engine/detector.ts';
import type { Thresholds } from '../../inference/manifest.ts';
import {
  compilePolicy,
  evaluatePolicy,
  shownDecision,
  type PolicyDecision,
  type ScanFacts,
} from '../../engine/policy.ts';
import { Errors } from '../../lib/errors.ts';
import { getScan as getScanRow } from '../../store/scans.ts';
import type { PolicyDeps } from './deps.ts';
import { getPolicy } from './manage.ts';
import { factsOfScan } from './scan-facts.ts';

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
