/** The cheap prefilter: which rule triggers occur in the text, found in one scan. */
import { RULES } from './rules.ts';
import { TRAVERSAL_TRIGGERS } from './traversal.ts';

// All triggers in one alternation (longest first), scanned once: far cheaper than one search each.
const TRIGGERS = [...new Set([...RULES.flatMap((rule) => rule.triggers), ...TRAVERSAL_TRIGGERS])].sort(
  (a, b) => b.length - a.length,
);
const TRIGGER_RE = new RegExp(TRIGGERS.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
// A trigger found implies every trigger inside it (the scan reports one alternative per position).
const IMPLIED = new Map(TRIGGERS.map((t) => [t, TRIGGERS.filter((u) => t.includes(u))]));

/** The triggers that occur in `lower` (the lower-cased text), including those inside a longer one found. */
export function triggersIn(lower: string): Set<string> {
  const found = new Set<string>();
  TRIGGER_RE.lastIndex = 0;
  for (let m = TRIGGER_RE.exec(lower); m !== null; m = TRIGGER_RE.exec(lower)) {
    for (const t of IMPLIED.get(m[0])!) found.add(t);
    // Step one character, not past the match, so overlapping triggers (`.keychain`) are seen too.
    TRIGGER_RE.lastIndex = m.index + 1;
  }
  return found;
}
