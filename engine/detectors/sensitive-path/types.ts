/** The vocabulary of the sensitive-path detector: what a rule is, what a match says. */
import type { FindingItem } from '../../detector.ts';

export type PathSeverity = 'critical' | 'high' | 'medium' | 'low';
export type PathOs = 'linux' | 'windows' | 'macos' | 'any';
export type PathCategory =
  | 'system_file'
  | 'ssh_key'
  | 'env_file'
  | 'cloud_credentials'
  | 'secret_file'
  | 'config_file'
  | 'shell_history'
  | 'path_traversal';
export type DetectionType = 'exact_path' | 'filename' | 'traversal' | 'extension';

/** A finding item plus the rule's explanation (FindingItem has no room for these). */
export type SensitivePathMatch = FindingItem & {
  os: PathOs;
  severity: PathSeverity;
  risk_reason: string;
  matched_pattern: string;
  detection_type: DetectionType;
};

/** One row of the rule tables (built with `r()` in rule-syntax.ts). */
export interface PathRule {
  id: string;
  re: RegExp;
  /** Lower-case substrings; the rule's regex runs only when the text contains one. */
  triggers: readonly string[];
  category: Exclude<PathCategory, 'path_traversal'>;
  severity: PathSeverity;
  /** Severity when the match stands alone with no directory around it; null drops it. */
  bare?: PathSeverity | null;
  os: PathOs;
  type: DetectionType;
  reason: string;
  /** Directory rules: take in the rest of the path after the match. */
  extendRight?: boolean;
  /** Extra check on the whole path token. */
  accept?: (token: string) => boolean;
}

/** A match while the detector ranks overlaps; the extra fields are dropped before it returns. */
export interface Candidate extends SensitivePathMatch {
  /** Match span in the normalised text (before growing), for ranking overlaps. */
  coreLength: number;
  start: number;
  end: number;
}
