import type { Action } from '../../engine/detector.ts';
import type { Thresholds } from '../../inference/manifest.ts';
import { compilePolicy, enforcedDecision, type Condition } from '../../engine/policy.ts';
import { idFloor } from '../../lib/ids.ts';
import { anyScanBetween, scansForDecision } from '../../store/scans.ts';
import type { PolicyDeps } from './deps.ts';
import { getPolicy } from './manage.ts';
import { factsOfScan } from './scan-facts.ts';

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
  const counts = new Map<
    string,
    { previous_action: Action; new_action: Action; count: number; sample_scan_ids: string[] }
  >();
  let evaluated = 0;
  let changed = 0;
  // The first batch starts at the window's floor (inclusive), each next one after the last id seen.
  let from = idFloor('scan', input.since);
  let inclusive = true;
  const before = idFloor('scan', input.until);
  let truncated: string | null = null;
  for (;;) {
    const want = Math.min(BACKTEST_BATCH, input.max_scans - evaluated);
    const rows = await scansForDecision(deps.db, orgId, {
      from,
      inclusive,
      before,
      limit: want,
      withFindings: needItems,
    });
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
    inclusive = false;
    if (evaluated >= input.max_scans) {
      if (await anyScanBetween(deps.db, orgId, from, before)) truncated = rows.at(-1)!.id;
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
