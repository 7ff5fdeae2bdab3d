/**
 * Walks the rule tables over a text: runs the triggered rules, grows each match to its whole path,
 * adjusts severity for traversal or a web URL, and keeps the best of overlapping matches.
 */
import { runNow, STEP_CHARS, type Steps } from '../../../lib/steps.ts';
import type { DetectorInput } from '../../detector.ts';
import { grow, inferOs, WEB_URL } from './path-token.ts';
import { RULES } from './rules.ts';
import { CONFIDENCE, LEVELS, shift } from './severity.ts';
import { findTraversals, TRAVERSAL_RE, TRAVERSAL_TRIGGERS, traversalSeverity } from './traversal.ts';
import { triggersIn } from './triggers.ts';
import type { Candidate, SensitivePathMatch } from './types.ts';

/** Runs the triggered rules; records where traversal sequences that reach a sensitive file start. */
function* findPathRules(text: string, found: ReadonlySet<string>, out: Candidate[], aimedAt: Set<number>): Steps<void> {
  for (const rule of RULES) {
    if (!rule.triggers.some((t) => found.has(t))) continue;
    yield;
    // its own copy of the regex: another scan may use the shared one while this one pauses
    const re = new RegExp(rule.re);
    let floor = 0;
    let since = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m.index - since >= STEP_CHARS) {
        since = m.index;
        yield;
      }
      const [s, e] = grow(text, m.index, m.index + m[0].length, rule.extendRight === true, floor);
      // The grown path is one finding; resume after it so one long path is not re-grown per match.
      floor = e;
      if (re.lastIndex < e) re.lastIndex = e;
      const token = text.slice(s, e);
      if (rule.accept && !rule.accept(token)) continue;
      let severity = rule.severity;
      let reason = rule.reason;
      let type = rule.type;
      if (rule.bare !== undefined && !/[\\/]|%2f|%5c/i.test(token)) {
        if (rule.bare === null) continue;
        severity = rule.bare;
      }
      TRAVERSAL_RE.lastIndex = 0;
      const traversal = TRAVERSAL_RE.exec(token);
      if (traversal && traversalSeverity(traversal[0])) {
        aimedAt.add(s + traversal.index);
        severity = shift(severity, 1);
        reason += '; reached through path traversal';
        type = 'traversal';
      } else if (WEB_URL.test(token)) {
        // A path on a web server's URL is not a file on this machine.
        severity = shift(severity, -1);
        reason += '; inside a web URL';
      }
      out.push({
        text: '',
        label: rule.category,
        confidence: CONFIDENCE[severity],
        source: 'rule',
        span: [s, e],
        os: inferOs(token, rule.os),
        severity,
        risk_reason: reason,
        matched_pattern: rule.id,
        detection_type: type,
        coreLength: m[0].length,
        start: s,
        end: e,
      });
    }
  }
}

/** Several rules often fire on one path (`/root/.ssh/id_rsa`); keep the most severe, then the most specific. */
function pickBest(candidates: Candidate[]): Candidate[] {
  const rank = (c: Candidate) => LEVELS.indexOf(c.severity);
  const byStart = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Candidate[] = [];
  let i = 0;
  // Sweep clusters of chained overlaps, so a 1 MB input of paths stays near-linear.
  while (i < byStart.length) {
    let j = i + 1;
    let clusterEnd = byStart[i]!.end;
    while (j < byStart.length && byStart[j]!.start < clusterEnd) clusterEnd = Math.max(clusterEnd, byStart[j++]!.end);
    const ranked = byStart
      .slice(i, j)
      .sort((a, b) => rank(b) - rank(a) || b.coreLength - a.coreLength || a.start - b.start);
    const chosen: Candidate[] = [];
    for (const c of ranked) if (!chosen.some((k) => c.start < k.end && k.start < c.end)) chosen.push(c);
    kept.push(...chosen);
    i = j;
  }
  return kept;
}

/** Sensitive path references with severity, OS and reason; spans in original offsets. */
export function findSensitivePaths(input: DetectorInput): SensitivePathMatch[] {
  return runNow(sensitivePathSteps(input));
}

/** findSensitivePaths as steps that may pause (lib/steps.ts). */
export function* sensitivePathSteps(input: DetectorInput): Steps<SensitivePathMatch[]> {
  const { text, original } = input.text;
  if (text.length === 0) return [];
  const found = triggersIn(text.toLowerCase());
  if (found.size === 0) return [];
  const paths: Candidate[] = [];
  const aimedAt = new Set<number>();
  yield* findPathRules(text, found, paths, aimedAt);
  const kept = pickBest(paths);
  const traversals: Candidate[] = [];
  if (TRAVERSAL_TRIGGERS.some((t) => found.has(t))) yield* findTraversals(text, traversals, aimedAt);
  // Traversal items overlap the path they lead to on purpose: both are evidence.
  return [...kept, ...pickBest(traversals)]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map(({ coreLength: _c, start, end, ...item }) => {
      const span = input.text.toOriginal(start, end);
      return { ...item, span, text: original.slice(span[0], span[1]) };
    });
}
