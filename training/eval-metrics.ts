/**
 * Metrics summaries for `npm run eval`: binary classifiers (precision, recall, F1, FPR, ROC AUC,
 * recall at fixed FPRs; overall and per source) and PII spans (strict and overlap matching, P/R/F1/F2
 * per label, the structured kinds together, per source).
 */
import { rocAuc, thresholdForFpr } from './metrics.ts';

export interface Span {
  start: number;
  end: number;
  label: string;
}

/** The labels `npm run eval` reports for pii. */
export const EVAL_PII_LABELS = [
  'PERSON',
  'EMAIL',
  'PHONE',
  'ADDRESS',
  'SSN',
  'CREDIT_CARD',
  'IBAN',
  'BANK_ACCOUNT',
  'IP_ADDRESS',
  'MAC_ADDRESS',
  'VIN',
] as const;
export type EvalPiiLabel = (typeof EVAL_PII_LABELS)[number];
/** Identifiers with a fixed shape (regex + checksum territory), scored together. */
export const STRUCTURED_PII_LABELS: readonly EvalPiiLabel[] = [
  'EMAIL',
  'PHONE',
  'SSN',
  'CREDIT_CARD',
  'IBAN',
  'BANK_ACCOUNT',
  'IP_ADDRESS',
  'MAC_ADDRESS',
  'VIN',
];

/**
 * Maps a detector label (or a gold label in a common dataset spelling) to the eval label set; null
 * for labels outside it (LOCATION, ORGANIZATION, DATE_TIME ...), which are neither output nor scored.
 */
export function toEvalLabel(label: string): EvalPiiLabel | null {
  const l = label.toUpperCase();
  switch (l) {
    case 'PERSON':
    case 'PER':
    case 'NAME':
      return 'PERSON';
    case 'EMAIL':
    case 'EMAIL_ADDRESS':
      return 'EMAIL';
    case 'PHONE':
    case 'PHONE_NUMBER':
      return 'PHONE';
    case 'ADDRESS':
    case 'STREET_ADDRESS':
      return 'ADDRESS';
    case 'SSN':
    case 'US_SSN':
      return 'SSN';
    case 'CREDIT_CARD':
    case 'CREDIT_CARD_NUMBER':
      return 'CREDIT_CARD';
    case 'IBAN':
    case 'IBAN_CODE':
      return 'IBAN';
    case 'BANK_ACCOUNT':
    case 'US_BANK_NUMBER':
      return 'BANK_ACCOUNT';
    case 'IP_ADDRESS':
    case 'IP':
      return 'IP_ADDRESS';
    case 'MAC_ADDRESS':
    case 'MAC':
      return 'MAC_ADDRESS';
    case 'VIN':
      return 'VIN';
    default:
      return null;
  }
}

// ------------------------------------------------------------------------------------------------
// classifiers

export interface ClassifierRow {
  score: number;
  detected: boolean;
  label: 0 | 1;
  source?: string;
  /** threat family (`jailbreak_roleplay`, ...) of generated family rows; attacks and their benign twins share it. */
  family?: string;
}

const f4 = (x: number | null): string => (x === null || Number.isNaN(x) ? '  -   ' : x.toFixed(4));

/** Recall when the threshold is set so that at most `maxFpr` of the negatives score above it. */
export function recallAtFpr(rows: readonly ClassifierRow[], maxFpr: number): number | null {
  const neg = rows.filter((r) => r.label === 0).map((r) => r.score);
  const pos = rows.filter((r) => r.label === 1).map((r) => r.score);
  if (neg.length === 0 || pos.length === 0) return null;
  const t = thresholdForFpr(neg, maxFpr);
  return pos.filter((s) => s > t).length / pos.length;
}

export interface ClassifierStats {
  n: number;
  positives: number;
  negatives: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  fpr: number | null;
  accuracy: number;
  roc_auc: number | null;
}

export function classifierStats(rows: readonly ClassifierRow[]): ClassifierStats {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (const r of rows) {
    if (r.detected && r.label === 1) tp++;
    else if (r.detected) fp++;
    else if (r.label === 1) fn++;
    else tn++;
  }
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  const f1 =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : null;
  return {
    n: rows.length,
    positives: tp + fn,
    negatives: tn + fp,
    precision,
    recall,
    f1,
    fpr: tn + fp ? fp / (tn + fp) : null,
    accuracy: rows.length ? (tp + tn) / rows.length : 0,
    roc_auc: rocAuc(
      rows.map((r) => r.score),
      rows.map((r) => r.label),
    ),
  };
}

export function classifierSummary(rows: readonly ClassifierRow[], detector: string, tier: string): string {
  const s = classifierStats(rows);
  const lines = [
    `\n${detector} (${tier}) — detected = score >= default flag threshold`,
    `overall: n=${s.n} pos=${s.positives} neg=${s.negatives}  precision=${f4(s.precision)} recall=${f4(s.recall)} F1=${f4(s.f1)} FPR=${f4(s.fpr)} accuracy=${f4(s.accuracy)} ROC_AUC=${f4(s.roc_auc)}`,
    `recall at FPR<=0.02: ${f4(recallAtFpr(rows, 0.02))}   at FPR<=0.05: ${f4(recallAtFpr(rows, 0.05))}`,
  ];
  const bySource = groupBy(rows, (r) => r.source);
  if (bySource.size > 1 || (bySource.size === 1 && !bySource.has(undefined))) {
    lines.push(
      'per source:',
      `  ${'source'.padEnd(60)} ${'n'.padStart(6)} ${'pos'.padStart(5)} ${'neg'.padStart(5)} recall  FPR     F1      ROC_AUC`,
    );
    for (const [source, group] of [...bySource].sort((a, b) => String(a[0]).localeCompare(String(b[0])))) {
      const g = classifierStats(group);
      lines.push(
        `  ${String(source ?? '(none)')
          .slice(0, 60)
          .padEnd(
            60,
          )} ${String(g.n).padStart(6)} ${String(g.positives).padStart(5)} ${String(g.negatives).padStart(5)} ${f4(g.recall)} ${f4(g.fpr)} ${f4(g.f1)} ${f4(g.roc_auc)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface FamilyStats {
  family: string;
  positives: number;
  negatives: number;
  recall_at_fpr_01: number | null;
  recall_at_fpr_05: number | null;
  roc_auc: number | null;
  /** FPR of the family's benign twins at the model's flag threshold (`detected`). */
  benign_fpr: number | null;
  /** recall at the flag threshold. */
  recall: number | null;
}

/**
 * Per threat family, each scored against its own benign twins: recall at FPR 0.01 / 0.05, ROC AUC,
 * recall and benign FPR at the flag threshold. Rows without `family` are left out.
 */
export function familyStats(rows: readonly ClassifierRow[]): FamilyStats[] {
  const out: FamilyStats[] = [];
  for (const [family, group] of groupBy(rows, (r) => r.family)) {
    if (family === undefined) continue;
    const s = classifierStats(group);
    out.push({
      family,
      positives: s.positives,
      negatives: s.negatives,
      recall_at_fpr_01: recallAtFpr(group, 0.01),
      recall_at_fpr_05: recallAtFpr(group, 0.05),
      roc_auc: s.roc_auc,
      benign_fpr: s.fpr,
      recall: s.recall,
    });
  }
  return out.sort((a, b) => a.family.localeCompare(b.family));
}

/**
 * The family with the lowest recall at FPR 0.05 (ties: lower ROC AUC) — model selection goes by it.
 * Families with one class only (negatives-only sets) have no recall and are not candidates.
 */
export function worstFamily(stats: readonly FamilyStats[]): FamilyStats | undefined {
  const key = (s: FamilyStats): [number, number] => [s.recall_at_fpr_05 ?? -1, s.roc_auc ?? -1];
  return stats
    .filter((s) => s.positives > 0 && s.negatives > 0)
    .sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1])[0];
}

/** The per-family table of `npm run eval` (empty when no row carries `family`). */
export function familySummary(rows: readonly ClassifierRow[]): string {
  const stats = familyStats(rows);
  if (stats.length === 0) return '';
  const line = (s: FamilyStats) =>
    `  ${s.family.padEnd(22)} ${String(s.positives).padStart(5)} ${String(s.negatives).padStart(5)}  ${f4(s.recall_at_fpr_01)}      ${f4(s.recall_at_fpr_05)}      ${f4(s.roc_auc)}  ${f4(s.recall)}      ${f4(s.benign_fpr)}`;
  const worst = worstFamily(stats);
  return `${[
    '\nper family (each against its own benign twins):',
    `  ${'family'.padEnd(22)} ${'pos'.padStart(5)} ${'neg'.padStart(5)}  R@FPR.01    R@FPR.05    ROC_AUC recall@flag benign_FPR@flag`,
    ...stats.map(line),
    worst
      ? `WORST family (lowest recall at FPR 0.05): ${worst.family}: R@FPR.05=${f4(worst.recall_at_fpr_05)} ROC_AUC=${f4(worst.roc_auc)}`
      : 'WORST family: none has both attacks and benign rows',
  ].join('\n')}\n`;
}

// ------------------------------------------------------------------------------------------------
// pii spans

export interface PiiEvalRow {
  gold: Span[];
  predicted: Span[];
  source?: string;
}

export interface SpanCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface SpanScores extends SpanCounts {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  f2: number | null;
}

export function spanScores(c: SpanCounts): SpanScores {
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : null;
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : null;
  const fb = (b: number) =>
    precision !== null && recall !== null && precision + recall > 0
      ? ((1 + b * b) * precision * recall) / (b * b * precision + recall)
      : null;
  return { ...c, precision, recall, f1: fb(1), f2: fb(2) };
}

type Mode = 'strict' | 'overlap';

/**
 * Counts per eval label for one text. Gold spans whose label is outside the eval set are ignored.
 * Matching is one-to-one: strict needs the same label and exact offsets, overlap the same label and
 * any shared character.
 */
export function matchSpans(
  gold: readonly Span[],
  predicted: readonly Span[],
  mode: Mode,
): Map<EvalPiiLabel, SpanCounts> {
  const out = new Map<EvalPiiLabel, SpanCounts>();
  const counts = (l: EvalPiiLabel) => {
    let c = out.get(l);
    if (!c) out.set(l, (c = { tp: 0, fp: 0, fn: 0 }));
    return c;
  };
  const g = gold
    .map((s) => ({ ...s, label: toEvalLabel(s.label) }))
    .filter((s): s is Span & { label: EvalPiiLabel } => s.label !== null);
  const p = predicted
    .map((s) => ({ ...s, label: toEvalLabel(s.label) }))
    .filter((s): s is Span & { label: EvalPiiLabel } => s.label !== null);
  const used = new Array<boolean>(g.length).fill(false);
  for (const ps of p) {
    let hit = -1;
    for (let i = 0; i < g.length; i++) {
      const gs = g[i]!;
      if (used[i] || gs.label !== ps.label) continue;
      const ok =
        mode === 'strict' ? gs.start === ps.start && gs.end === ps.end : gs.start < ps.end && ps.start < gs.end;
      if (ok) {
        hit = i;
        break;
      }
    }
    if (hit >= 0) {
      used[hit] = true;
      counts(ps.label).tp++;
    } else counts(ps.label).fp++;
  }
  g.forEach((gs, i) => {
    if (!used[i]) counts(gs.label).fn++;
  });
  return out;
}

function add(into: SpanCounts, c: SpanCounts): void {
  into.tp += c.tp;
  into.fp += c.fp;
  into.fn += c.fn;
}

export interface PiiReport {
  byLabel: Record<string, { strict: SpanScores; overlap: SpanScores }>;
  structured: { strict: SpanScores; overlap: SpanScores };
  all: { strict: SpanScores; overlap: SpanScores };
  bySource: Record<string, { strict: SpanScores; overlap: SpanScores }>;
}

export function piiReport(rows: readonly PiiEvalRow[]): PiiReport {
  const zero = (): SpanCounts => ({ tp: 0, fp: 0, fn: 0 });
  const label = new Map<string, Record<Mode, SpanCounts>>();
  const structured = { strict: zero(), overlap: zero() };
  const all = { strict: zero(), overlap: zero() };
  const source = new Map<string, Record<Mode, SpanCounts>>();
  for (const row of rows) {
    for (const mode of ['strict', 'overlap'] as const) {
      for (const [l, c] of matchSpans(row.gold, row.predicted, mode)) {
        let rec = label.get(l);
        if (!rec) label.set(l, (rec = { strict: zero(), overlap: zero() }));
        add(rec[mode], c);
        add(all[mode], c);
        if (STRUCTURED_PII_LABELS.includes(l)) add(structured[mode], c);
        const sk = row.source ?? '(none)';
        let srec = source.get(sk);
        if (!srec) source.set(sk, (srec = { strict: zero(), overlap: zero() }));
        add(srec[mode], c);
      }
    }
  }
  const both = (r: Record<Mode, SpanCounts>) => ({ strict: spanScores(r.strict), overlap: spanScores(r.overlap) });
  return {
    byLabel: Object.fromEntries([...label].sort().map(([l, r]) => [l, both(r)])),
    structured: both(structured),
    all: both(all),
    bySource: Object.fromEntries([...source].sort().map(([s, r]) => [s, both(r)])),
  };
}

export function piiSummary(rows: readonly PiiEvalRow[]): string {
  const r = piiReport(rows);
  const line = (name: string, x: { strict: SpanScores; overlap: SpanScores }) =>
    `  ${name.slice(0, 44).padEnd(44)} ${String(x.strict.tp + x.strict.fn).padStart(6)}  ${f4(x.strict.precision)} ${f4(x.strict.recall)} ${f4(x.strict.f1)} ${f4(x.strict.f2)}   ${f4(x.overlap.precision)} ${f4(x.overlap.recall)} ${f4(x.overlap.f1)} ${f4(x.overlap.f2)}`;
  const header = `  ${''.padEnd(44)} ${'gold'.padStart(6)}  strict: P      R      F1     F2       overlap: P      R      F1     F2`;
  const lines = [
    '\npii spans (labels outside the eval set are not scored)',
    header,
    line('ALL', r.all),
    line('STRUCTURED (' + STRUCTURED_PII_LABELS.length + ' kinds)', r.structured),
  ];
  for (const [l, x] of Object.entries(r.byLabel)) lines.push(line(l, x));
  if (Object.keys(r.bySource).length > 1 || !('(none)' in r.bySource)) {
    lines.push('per source:');
    for (const [s, x] of Object.entries(r.bySource)) lines.push(line(s, x));
  }
  return `${lines.join('\n')}\n`;
}

function groupBy<T, K>(rows: readonly T[], key: (r: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const r of rows) {
    const k = key(r);
    const g = m.get(k);
    if (g) g.push(r);
    else m.set(k, [r]);
  }
  return m;
}
