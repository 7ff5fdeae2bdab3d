/**
 * The spec's element shapes of a legacy answer, from our detectors' results: the prompt-injection
 * score on the spec's scale (block above 0.65), PII items under the spec's label names, and the
 * sensitive-path items with their summary. docs/legacy.md documents each mapping.
 */
import type { DetectorResult, FindingItem } from '../../engine/detector.ts';
import type { SensitivePathMatch } from '../../engine/detectors/sensitive-path/types.ts';
import type { Thresholds } from '../../inference/manifest.ts';

/** The spec's recommended blocking threshold: a legacy score above it is our block decision. */
export const LEGACY_BLOCK_SCORE = 0.65;

/**
 * Our calibrated score on the spec's scale, piecewise linear: [0, block_above] → [0, 0.65] and
 * [block_above, 1] → [0.65, 1], so `result > 0.65` exactly when `score > block_above`. Four decimals;
 * a score just above the threshold never rounds down to 0.65.
 */
export function legacyScore(score: number, blockAbove: number): number {
  const s = Math.min(1, Math.max(0, score));
  if (s <= blockAbove) return blockAbove <= 0 ? 0 : round4((s / blockAbove) * LEGACY_BLOCK_SCORE);
  const mapped = round4(LEGACY_BLOCK_SCORE + ((s - blockAbove) / (1 - blockAbove)) * (1 - LEGACY_BLOCK_SCORE));
  return mapped > LEGACY_BLOCK_SCORE ? mapped : LEGACY_BLOCK_SCORE + 0.0001;
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** The spec's `prompt_injection` element; the result's own thresholds (e.g. a fast fallback's) map it. */
export function promptInjectionElement(result: DetectorResult, defaults: Thresholds) {
  const thresholds = result.thresholds ?? defaults;
  return { type: 'score', name: 'prompt_injection', result: legacyScore(result.score, thresholds.block_above) };
}

/**
 * Our PII labels (regex recognizers and the NER model) → the spec's names. Labels not listed pass
 * through unchanged; CONTEXT_ONLY labels are left out (see {@link piiElement}).
 */
export const PII_LABELS: Readonly<Record<string, string>> = {
  PERSON: 'PERSON',
  EMAIL_ADDRESS: 'EMAIL',
  PHONE_NUMBER: 'PHONE',
  STREET_ADDRESS: 'ADDRESS',
  ADDRESS: 'ADDRESS',
  US_SSN: 'SSN',
  CREDIT_CARD: 'CREDIT_CARD',
  IBAN_CODE: 'IBAN',
  BANK_ACCOUNT: 'BANK_ACCOUNT',
  IP_ADDRESS: 'IP_ADDRESS',
  MAC_ADDRESS: 'MAC_ADDRESS',
  VIN: 'VIN',
};

/** A place or organisation named in passing is not personal data (the pii detector scores neither). */
const CONTEXT_ONLY = new Set(['LOCATION', 'ORGANIZATION']);

/** The spec's `pii` element: each item's text and label, in text order. */
export function piiElement(items: readonly FindingItem[]) {
  return {
    type: 'PII',
    name: 'pii',
    result: items
      .filter((i) => !CONTEXT_ONLY.has(i.label))
      .map((i) => ({ text: i.text, label: PII_LABELS[i.label] ?? i.label })),
  };
}

// risk_score: the most severe finding sets the base; each further finding adds a little, up to 100.
const SEVERITY_BASE: Readonly<Record<string, number>> = { critical: 80, high: 60, medium: 40, low: 20 };
const PER_EXTRA_FINDING = 5;

/**
 * The categories the spec rates critical as a whole ("system files, SSH keys, environment files,
 * cloud credentials (all critical)"); an item's label is its category.
 */
export const LEGACY_CRITICAL_CATEGORIES: ReadonlySet<string> = new Set([
  'system_file',
  'ssh_key',
  'env_file',
  'cloud_credentials',
]);

/**
 * An item's legacy severity: `critical` for every item of a critical category, as the spec says ("all
 * critical": `/etc/passwd`, `.env`, `authorized_keys` are `high` in v1, a public key or `.env.example`
 * `low`); the secret, config, history and traversal categories keep their rating (medium to high).
 * v1 findings keep the detector's rating.
 */
export function legacySeverity(m: SensitivePathMatch): SensitivePathMatch['severity'] {
  return LEGACY_CRITICAL_CATEGORIES.has(m.label) ? 'critical' : m.severity;
}

/** The spec's `sensitive_path_detection` element: the matcher's items and their summary. */
export function sensitivePathElement(found: readonly SensitivePathMatch[]) {
  const matches = found.map((m) => ({ ...m, severity: legacySeverity(m) }));
  const count = (s: string) => matches.filter((m) => m.severity === s).length;
  const base = Math.max(0, ...matches.map((m) => SEVERITY_BASE[m.severity] ?? 0));
  return {
    type: 'sensitive_path_detection',
    name: 'sensitive_path_detection',
    result: matches.map((m) => ({
      path: m.text,
      severity: m.severity,
      os: m.os,
      risk_reason: m.risk_reason,
      matched_pattern: m.matched_pattern,
      detection_type: m.detection_type,
    })),
    summary: {
      total_detected: matches.length,
      critical_count: count('critical'),
      high_count: count('high'),
      medium_count: count('medium'),
      risk_score: matches.length === 0 ? 0 : Math.min(100, base + PER_EXTRA_FINDING * (matches.length - 1)),
    },
  };
}
