/**
 * Detection audit events: which scans get one (AUDIT_DETECTION_EVENTS) and what it says, derived
 * from the scan row alone, so the group-commit writer inserts it in the scan's own statement.
 */
import { newTimedId } from '../lib/ids.ts';
import type { DetectionEvent } from './audit.ts';
import type { ScanRow } from './scans.ts';

/** `non_allowed`: scans whose effective action is not `allowed`; `all`: every scan; `none`: no scan. */
export type DetectionEventMode = 'non_allowed' | 'all' | 'none';

interface StoredFinding {
  detector?: unknown;
  frameworks?: { owasp_llm?: unknown; owasp_agentic?: unknown; mitre_atlas?: unknown };
}

/**
 * The detector named by a decision's `triggering_finding` (`<detector>:<label>` or `<detector>`),
 * or null: no trigger, an MCP list decision (`mcp:…`), or a name that did not run in this scan
 * (a policy's own reason is not a detector).
 */
export function triggeringDetector(triggering: unknown, scores: Readonly<Record<string, number>>): string | null {
  if (typeof triggering !== 'string' || triggering === '') return null;
  const colon = triggering.indexOf(':');
  const name = colon < 0 ? triggering : triggering.slice(0, colon);
  if (name === 'mcp') return null;
  return Object.hasOwn(scores, name) ? name : null;
}

/** The distinct strings of the given framework lists, in first-seen order. */
function tags(lists: unknown[]): string[] {
  const out = new Set<string>();
  for (const list of lists) if (Array.isArray(list)) for (const t of list) if (typeof t === 'string') out.add(t);
  return [...out];
}

/**
 * The detection event for `row`, or null when `mode` does not record it. The action is the
 * effective one (`observed_action ?? action`: an observe-mode scan records what the policy would
 * have done, with `enforced: false`); detector, score and framework tags come from the decision's
 * triggering finding (null and empty when none).
 */
export function detectionEventFor(
  row: ScanRow,
  mode: DetectionEventMode,
  id: string = newTimedId('audit', new Date(row.created_at).getTime()),
): DetectionEvent | null {
  const action = row.observed_action ?? row.action;
  if (mode === 'none' || (mode === 'non_allowed' && action === 'allowed')) return null;
  const detector = triggeringDetector(row.decision.triggering_finding, row.scores);
  const findings = detector === null ? [] : (row.findings as StoredFinding[]).filter((f) => f?.detector === detector);
  return {
    id,
    org_id: row.org_id,
    kind: 'detection',
    created: row.created_at,
    actor_id: row.api_key_id,
    request_id: row.request_id,
    scan_id: row.id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    surface: row.surface,
    detector,
    score: detector === null ? null : row.scores[detector]!,
    action,
    owasp_tags: tags(findings.flatMap((f) => [f.frameworks?.owasp_llm, f.frameworks?.owasp_agentic])),
    mitre_tags: tags(findings.map((f) => f.frameworks?.mitre_atlas)),
    enforced: row.observed_action === null,
  };
}
