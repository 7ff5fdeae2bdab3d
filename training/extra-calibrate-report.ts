/**
 * The figures `npm run models:calibrate` prints and writes into calibration.json's `metrics` (pure):
 * per slice of the rows (overall, surface group, family or source, language, the operator's events),
 * ROC AUC, recall of the attacks and false-alarm rate of the benign rows at the published levels, for the
 * detector alone, stacked with the model (fitted on these rows: in-sample) and stacked as fitted on the
 * other sources' rows (cross-fitted: the honest number).
 */
import { CALIBRATED_LEVELS } from '../engine/detectors/calibration.ts';
import type { CalibrationRow } from './extra-calibrate-fit.ts';
import { rocAuc } from './metrics.ts';

export const SCORINGS = ['base', 'stacked', 'cross_fitted'] as const;
export type Scoring = (typeof SCORINGS)[number];
const LEVELS = ['warn', 'flag', 'block'] as const;
type Level = (typeof LEVELS)[number];

/** Each row's published score under each scoring, index-aligned with the rows. */
export type ScoreColumns = Record<Scoring, readonly number[]>;

type PerScoring = Record<Scoring, number | null>;

export interface SliceMetrics {
  key: string;
  positives: number;
  negatives: number;
  /** `group-benign`: the slice has attacks only, so its AUC is against the benign rows of its surface groups */
  auc_against: 'slice' | 'group-benign' | null;
  roc_auc: PerScoring;
  recall: Record<Level, PerScoring>;
  fpr: Record<Level, PerScoring>;
}

/** Languages (and other small slices) with fewer rows are left out of the table. */
export const MIN_SLICE_ROWS = 30;

const r4 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e4) / 1e4);

function shareAbove(idx: readonly number[], scores: readonly number[], t: number): number | null {
  if (idx.length === 0) return null;
  return idx.filter((i) => scores[i]! > t).length / idx.length;
}

/** One slice's figures; `idx` are the slice's row indices. */
export function sliceMetrics(
  key: string,
  idx: readonly number[],
  rows: readonly CalibrationRow[],
  cols: ScoreColumns,
): SliceMetrics {
  const pos = idx.filter((i) => rows[i]!.label === 1);
  const neg = idx.filter((i) => rows[i]!.label === 0);
  let against: SliceMetrics['auc_against'] = pos.length && neg.length ? 'slice' : null;
  let aucIdx = idx;
  if (pos.length && !neg.length) {
    const groups = new Set(pos.map((i) => rows[i]!.group));
    aucIdx = [...pos, ...rows.flatMap((r, i) => (r.label === 0 && groups.has(r.group) ? [i] : []))];
    against = aucIdx.length > pos.length ? 'group-benign' : null;
  }
  const per = (f: (s: readonly number[]) => number | null): PerScoring =>
    Object.fromEntries(SCORINGS.map((s) => [s, r4(f(cols[s]))])) as PerScoring;
  return {
    key,
    positives: pos.length,
    negatives: neg.length,
    auc_against: against,
    roc_auc: per((s) =>
      against
        ? rocAuc(
            aucIdx.map((i) => s[i]!),
            aucIdx.map((i) => rows[i]!.label),
          )
        : null,
    ),
    recall: Object.fromEntries(
      LEVELS.map((l) => [l, per((s) => shareAbove(pos, s, CALIBRATED_LEVELS[`${l}_above`]))]),
    ) as Record<Level, PerScoring>,
    fpr: Object.fromEntries(
      LEVELS.map((l) => [l, per((s) => shareAbove(neg, s, CALIBRATED_LEVELS[`${l}_above`]))]),
    ) as Record<Level, PerScoring>,
  };
}

/** Row indices by key (rows whose key is undefined are left out), keys sorted. */
function by(rows: readonly CalibrationRow[], keyOf: (r: CalibrationRow) => string | undefined): [string, number[]][] {
  const m = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const k = keyOf(r);
    if (k === undefined) return;
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  });
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The slices of a detector's rows: all, each surface group, each family (prompt injection) or source
 * (toxicity), each language of the multilingual family (prompt injection) or of all rows (toxicity),
 * and the operator's events when there are any. Slices under MIN_SLICE_ROWS rows are left out but
 * for the overall, group and family ones.
 */
export function calibrationSlices(
  detector: string,
  rows: readonly CalibrationRow[],
  cols: ScoreColumns,
): SliceMetrics[] {
  const out: SliceMetrics[] = [sliceMetrics('all', [...rows.keys()], rows, cols)];
  const add = (prefix: string, groups: [string, number[]][], min = 0) => {
    for (const [k, idx] of groups) if (idx.length >= min) out.push(sliceMetrics(`${prefix}${k}`, idx, rows, cols));
  };
  const validation = (r: CalibrationRow) => r.origin !== 'events';
  add(
    'group ',
    by(rows, (r) => r.group),
  );
  if (detector === 'toxicity') {
    add(
      'source ',
      by(rows, (r) => (validation(r) ? r.source : undefined)),
    );
    add(
      'lang ',
      by(rows, (r) => (validation(r) ? r.lang : undefined)),
      MIN_SLICE_ROWS,
    );
  } else {
    add(
      'family ',
      by(rows, (r) => (validation(r) ? r.family : undefined)),
    );
    add(
      'multilingual ',
      by(rows, (r) => (r.family === 'multilingual' ? r.lang : undefined)),
      MIN_SLICE_ROWS,
    );
  }
  add(
    '',
    by(rows, (r) => (validation(r) ? undefined : 'events')),
  );
  return out;
}

const fmt = (x: number | null): string => (x === null ? '–' : x.toFixed(3));
const trio = (p: PerScoring): string => SCORINGS.map((s) => fmt(p[s])).join(' / ');

/** The slices as a markdown table: each cell base / stacked / cross-fitted. */
export function renderSlices(slices: readonly SliceMetrics[]): string {
  const head =
    '| slice | attacks / benign | ROC AUC | recall warn | recall flag | recall block | benign FPR warn | benign FPR block |\n' +
    '|---|---|---|---|---|---|---|---|\n';
  return (
    head +
    slices
      .map(
        (s) =>
          `| ${s.key} | ${s.positives} / ${s.negatives} | ${trio(s.roc_auc)}${s.auc_against === 'group-benign' ? ' ¹' : ''} | ` +
          `${trio(s.recall.warn)} | ${trio(s.recall.flag)} | ${trio(s.recall.block)} | ${trio(s.fpr.warn)} | ${trio(s.fpr.block)} |`,
      )
      .join('\n') +
    '\n\nEach cell: the detector alone / stacked with the model (fitted on these rows) / stacked as fitted on the ' +
    'other sources (cross-fitted: the number to trust). Levels are the published warn / flag / block (' +
    `${CALIBRATED_LEVELS.warn_above} / ${CALIBRATED_LEVELS.flag_above} / ${CALIBRATED_LEVELS.block_above}).\n` +
    '¹ attacks only: AUC against the benign rows of the same surface groups.\n'
  );
}
