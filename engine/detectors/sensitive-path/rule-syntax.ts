/**
 * The building blocks the rule tables are written in: regex fragments for separators and name
 * boundaries (plain, JSON-escaped and URL-encoded), and `r()`, which turns a table row into a rule.
 */
import type { DetectionType, PathOs, PathRule, PathSeverity } from './types.ts';

// A separator: slash, backslash (doubled when JSON-escaped), or its URL encoding.
export const S = String.raw`(?:[\\/]{1,2}|%2f|%5c)`;
// Start of a file name: not inside a longer name (an encoded separator counts as a boundary).
export const B = String.raw`(?:(?<![\w.$-])|(?<=%2f|%5c))`;
// End of a name: no more name characters (a sentence's full stop is fine).
export const E = String.raw`(?![\w-]|\.\w)`;
// Backup copies of a secret are as sensitive as the original.
export const BAK = String.raw`(?:\.(?:bak|old|orig|save|swp|backup|tmp|\d))?`;
// `etc` at a path root: after a separator, or where a path may start.
export const ETC = String.raw`(?:${S}|(?<![\w.-]))etc${S}`;

/** One rule from a table row: the pattern compiled global and case-insensitive, one trigger or several. */
export function r(
  id: string,
  pattern: string,
  triggers: string | readonly string[],
  category: PathRule['category'],
  severity: PathSeverity,
  os: PathOs,
  type: DetectionType,
  reason: string,
  extra: Partial<Pick<PathRule, 'bare' | 'extendRight' | 'accept'>> = {},
): PathRule {
  return {
    id,
    re: new RegExp(pattern, 'gi'),
    triggers: typeof triggers === 'string' ? [triggers] : triggers,
    category,
    severity,
    os,
    type,
    reason,
    ...extra,
  };
}
