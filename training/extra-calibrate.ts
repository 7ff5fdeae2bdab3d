/**
 * One calibration of an operator's model from its scored rows (pure): the stack, the anchors, the
 * cascade, the cross-fitted check and the figures — the ExtraCalibration `npm run models:calibrate`
 * writes, and the text it prints.
 */
import type { ExtraCalibration, ExtraDetector } from '../inference/extra-models.ts';
import type { Thresholds } from '../inference/manifest.ts';
import {
  crossFitted,
  fitAnchors,
  fitCascade,
  fitStack,
  publishedStack,
  type CalibrationRow,
  type CascadeOutcome,
} from './extra-calibrate-fit.ts';
import { calibrationSlices, renderSlices } from './extra-calibrate-report.ts';
import { TARGET_FPR } from './threshold-fit.ts';

/** Folds of sources for the cross-fitted figures. */
export const CROSS_FIT_FOLDS = 5;

export interface CalibrationInputs {
  model: string;
  sha256: string;
  detector: ExtraDetector;
  /** what the fit read, recorded in the file: dataset hash, files, row counts, events */
  inputs: Record<string, unknown>;
  fittedAt: Date;
}

export interface CalibrationResult {
  calibration: ExtraCalibration & { inputs: Record<string, unknown> };
  report: string;
}

const pct = (x: number, n: number): string => (n ? `${((100 * x) / n).toFixed(2)} %` : '–');

function cascadeLine(name: string, c: { lower_logit: number; upper_logit: number; outcome: CascadeOutcome }): string {
  const o = c.outcome;
  return (
    `| ${name} | ${c.lower_logit} / ${c.upper_logit} | ${(100 * o.sent).toFixed(1)} % | ` +
    `${pct(o.early_low, o.rows)} / ${pct(o.early_high, o.rows)} | ${o.changed} (${pct(o.changed, o.rows)}) | ` +
    `${o.lost_alarms} of ${o.alarms} | ${o.extra_blocks} (${o.blocks} blocked) |`
  );
}

function ratesTable(rates: Record<string, Record<string, Thresholds>>, pool: Record<string, Record<string, number>>) {
  const lines: string[] = [];
  for (const [group, byOrigin] of Object.entries(rates))
    for (const [origin, r] of Object.entries(byOrigin))
      lines.push(
        `| ${group} | ${origin} | ${pool[group]![origin]} | ${(100 * r.warn_above).toFixed(1)} / ${(100 * r.flag_above).toFixed(1)} / ${(100 * r.block_above).toFixed(2)} |`,
      );
  return '| group | origin | benign rows | benign FPR % warn / flag / block |\n|---|---|---|---|\n' + lines.join('\n');
}

/**
 * Fits the model's calibration on scored rows.
 * @throws Error when the rows lack a class or a surface group has no benign rows
 */
export function calibrate(rows: readonly CalibrationRow[], meta: CalibrationInputs): CalibrationResult {
  const stack = fitStack(rows);
  const weights = { bias: stack.bias, base: stack.base, model: stack.model };
  const anchors = fitAnchors(rows, weights, TARGET_FPR);
  const cascade = fitCascade(rows, weights, anchors.anchors);
  const stacked = rows.map((r) => publishedStack(weights, anchors.anchors, r));
  const cv = crossFitted(rows, CROSS_FIT_FOLDS, TARGET_FPR, { weights, anchors: anchors.anchors });
  const slices = calibrationSlices(meta.detector, rows, { base: rows.map((r) => r.base), stacked, cross_fitted: cv });
  const calibration: CalibrationResult['calibration'] = {
    model: meta.model,
    sha256: meta.sha256,
    detector: meta.detector,
    fitted_at: meta.fittedAt.toISOString(),
    stack: weights,
    cascade: { lower_logit: cascade.lower_logit, upper_logit: cascade.upper_logit },
    calibration: { fpr: TARGET_FPR, forms: { accurate: anchors.anchors }, pool: { accurate: anchors.pool } },
    metrics: {
      dropped_input: stack.dropped,
      cross_fit_folds: CROSS_FIT_FOLDS,
      benign_fpr_by_origin: anchors.rates,
      cascade: {
        upper_attack_rank: cascade.upper_attack_rank,
        lower_benign_rank: cascade.lower_benign_rank,
        outcome: cascade.outcome,
        benign_attack_rule: cascade.benign_attack_rule,
      },
      slices,
    },
    inputs: meta.inputs,
  };
  const a = (g: 'prompt' | 'document') =>
    `${anchors.anchors[g].warn_above.toFixed(4)} / ${anchors.anchors[g].flag_above.toFixed(4)} / ${anchors.anchors[g].block_above.toFixed(4)}`;
  const report = [
    `${meta.model} (${meta.detector}): ${rows.length} rows`,
    '',
    `stack: sigmoid(${weights.bias} + ${weights.base} · logit(detector) + ${weights.model} · logit(model))` +
      (stack.dropped
        ? `\n  the fit gave the ${stack.dropped === 'model' ? "model's" : "detector's"} score a weight of 0 or less: ` +
          `dropped (weight 0)${stack.dropped === 'model' ? ': the model adds nothing on these rows' : ': the model alone'}`
        : ''),
    `anchors (raw stack at benign FPR ${100 * TARGET_FPR.warn_above} / ${100 * TARGET_FPR.flag_above} / ${100 * TARGET_FPR.block_above} %): prompt ${a('prompt')}; document ${a('document')}`,
    '',
    ratesTable(anchors.rates, anchors.pool),
    '',
    'auto tier (the model runs only where the stack is undecided without it), against always running it:',
    '| bounds | lower / upper logit | sent to the model | decided low / high without it | decisions changed | alarms lost | blocks added |',
    '|---|---|---|---|---|---|---|',
    cascadeLine(
      `fitted (${(100 * cascade.upper_attack_rank).toFixed(1)} % of attack logits ≤ upper, ${(100 * cascade.lower_benign_rank).toFixed(1)} % of benign < lower)`,
      cascade,
    ),
    cascadeLine('benign q0.99 / attack q0.01', cascade.benign_attack_rule),
    '',
    renderSlices(slices),
  ].join('\n');
  return { calibration, report };
}
