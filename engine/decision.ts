/**
 * Scores against thresholds: each detector's score against its thresholds (`> block_above` →
 * blocked, `> flag_above` → flagged, `> warn_above` → warned); the most severe wins, ties going to
 * the higher score. The whole decision when no policy applies; step 3 of a policy's (engine/policy.ts).
 */
import type { Thresholds } from '../inference/manifest.ts';
import type { Action, DetectorResult } from './detector.ts';

export interface Decision {
  action: Action;
  /** Why: `score_threshold`, `below_thresholds`, or a policy's reasons (docs/policies.md). */
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

/** What thresholds read of a detector's result: a live result or one rebuilt from a stored scan. */
export interface ScoredResult {
  detector: string;
  score: number;
  items: readonly Pick<DetectorResult['items'][number], 'label' | 'confidence'>[];
  thresholds?: Thresholds;
}

/**
 * The item behind a result's score: the most confident item whose confidence is the score (an item may be
 * reported without raising the score, e.g. a place name for PII), else the most confident item; null
 * without items.
 */
export function scoringItem(r: ScoredResult): ScoredResult['items'][number] | null {
  let best: ScoredResult['items'][number] | null = null;
  let setter: ScoredResult['items'][number] | null = null;
  for (const i of r.items) {
    if (!best || i.confidence > best.confidence) best = i;
    if (i.confidence === r.score && (!setter || i.confidence > setter.confidence)) setter = i;
  }
  return setter ?? best;
}

/** @param thresholdsFor the thresholds that apply to a result; null leaves it out of the decision. */
export function decideByThresholds<R extends ScoredResult>(
  results: readonly R[],
  thresholdsFor: (r: R) => Thresholds | null,
): Decision {
  let top: { action: Action; score: number; result: R } | null = null;
  for (const r of results) {
    const t = thresholdsFor(r);
    if (!t) continue;
    const action = actionFor(r.score, t);
    if (action === 'allowed') continue;
    if (
      !top ||
      SEVERITY[action] > SEVERITY[top.action] ||
      (SEVERITY[action] === SEVERITY[top.action] && r.score > top.score)
    )
      top = { action, score: r.score, result: r };
  }
  if (!top)
    return {
      action: 'allowed',
      reason: 'below_thresholds',
      policy_id: null,
      policy_revision_id: null,
      matched_rule_id: null,
      triggering_finding: null,
    };
  const item = scoringItem(top.result);
  return {
    action: top.action,
    reason: 'score_threshold',
    policy_id: null,
    policy_revision_id: null,
    matched_rule_id: null,
    triggering_finding: item ? `${top.result.detector}:${item.label}` : top.result.detector,
  };
}
