/** Directory traversal sequences: the pattern, how deep or encoded a run must be to matter, and their findings. */
import { STEP_CHARS, type Steps } from '../../../lib/steps.ts';
import { CONFIDENCE, LEVELS } from './severity.ts';
import type { Candidate, PathSeverity } from './types.ts';

// `..` (plain, %-encoded, double-encoded, overlong UTF-8, or the `....//` filter bypass) then a separator.
export const TRAVERSAL_RE =
  /(?:(?:\.\.\.\.|\.\.|%2e%2e|\.%2e|%2e\.|%252e%252e|%c0%ae%c0%ae)(?:[\\/]{1,2}|%2f|%5c|%252f|%255c|%c0%af|%c1%9c)){1,64}/gi;
export const ENCODED_TRAVERSAL = /%(?:2e|2f|5c|25|c0|c1)/i;
export const TRAVERSAL_TRIGGERS = ['..', '%2e', '%c0'];

function depthOf(seq: string): number {
  const m = seq.match(/\.\.|%2e%2e|\.%2e|%2e\.|%252e%252e|%c0%ae%c0%ae/gi);
  return m ? m.length : 0;
}

/** How alarming a traversal run is: encoded or `....` runs are high, plain ones by depth; null when too shallow. */
export function traversalSeverity(seq: string): PathSeverity | null {
  if (ENCODED_TRAVERSAL.test(seq) || seq.includes('....')) return 'high';
  const depth = depthOf(seq);
  // `../../` is everyday relative-import syntax; only deep runs look like an escape attempt.
  if (depth >= 6) return 'high';
  if (depth >= 4) return 'medium';
  return depth >= 2 ? 'low' : null;
}

/** Adds a finding per traversal run; a run that starts where a sensitive path was reached counts as high. */
export function* findTraversals(text: string, out: Candidate[], aimedAt: ReadonlySet<number>): Steps<void> {
  // its own copy of the regex: another scan may use the shared one while this one pauses
  const re = new RegExp(TRAVERSAL_RE);
  let since = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index - since >= STEP_CHARS) {
      since = m.index;
      yield;
    }
    let severity = traversalSeverity(m[0]);
    if (!severity) continue;
    const end = m.index + m[0].length;
    // Traversal that lands on a sensitive file is an attack, whatever its depth.
    const aimed = aimedAt.has(m.index);
    if (aimed && LEVELS.indexOf(severity) < LEVELS.indexOf('high')) severity = 'high';
    out.push({
      text: '',
      label: 'path_traversal',
      confidence: CONFIDENCE[severity],
      source: 'rule',
      span: [m.index, end],
      os: /\\|%5c|%255c|%c1%9c/i.test(m[0]) ? 'windows' : 'any',
      severity,
      risk_reason: aimed ? 'directory traversal toward a sensitive file' : 'directory traversal sequence',
      matched_pattern: ENCODED_TRAVERSAL.test(m[0]) ? 'traversal_encoded' : 'traversal',
      detection_type: 'traversal',
      coreLength: m[0].length,
      start: m.index,
      end,
    });
  }
}
