/**
 * The default decision when no policy applies: each detector's score against its thresholds
 * (`> block_above` → blocked, `> flag_above` → flagged, `> warn_above` → warned); the most severe
 * wins, ties going to the higher score. Policies (rules, MCP lists, per-detector config) plug in
 * before this step.
 */
import type { Action, DetectorResult, Thresholds } from './detector.ts';

export interface Decision {
  action: Action;
  /** `score_threshold` when a detector crossed a threshold, `below_thresholds` when none did. */
  reason: string;
  policy_id: string | null;
  policy_revision_id: string | null;
  matched_rule_id: string | null;
  /** `<detector>:<label>` of the item that decided it (or `<detector>` for a score without items). */
  triggering_finding: string | null;
}

const SEVERITY: Record<Action, number> = { allowed: 0, warned: 1, flagged: 2, blocked: 3 };

export function actionFor(score: number, t: Thresholds): Action {
  if (score > t.block_above) return 'blocked';
  if (score > t.flag_above) return 'flagged';
  if (score > t.warn_above) return 'warned';
  return 'allowed';
}

export function severity(a: Action): number {
  return SEVERITY[a];
}

/** @param thresholdsOf the defaults for a detector, used when the result carries none of its own. */
export function decideByThresholds(results: readonly DetectorResult[], thresholdsOf: (detector: string) => Thresholds): Decision {
  let top: { action: Action; score: number; result: DetectorResult } | null = null;
  for (const r of results) {
    const action = actionFor(r.score, r.thresholds ?? thresholdsOf(r.detector));
    if (action === 'allowed') continue;
    if (!top || SEVERITY[action] > SEVERITY[top.action] || (SEVERITY[action] === SEVERITY[top.action] && r.score > top.score)) top = { action, score: r.score, result: r };
  }
  if (!top) return { action: 'allowed', reason: 'below_thresholds', policy_id: null, policy_revision_id: null, matched_rule_id: null, triggering_finding: null };
  const item = top.result.items.reduce<DetectorResult['items'][number] | null>((b, i) => (!b || i.confidence > b.confidence ? i : b), null);
  return {
    action: top.action,
    reason: 'score_threshold',
    policy_id: null,
    policy_revision_id: null,
    matched_rule_id: null,
    triggering_finding: item ? `${top.result.detector}:${item.label}` : top.result.detector,
  };
}
