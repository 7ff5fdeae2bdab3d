/** The validation table and the cards of `npm run train:toxicity-stack` (toxicity-semantic, the toxicity stack). */
import type { Thresholds } from '../../inference/manifest.ts';
import { binaryMetrics, rocAuc } from '../metrics.ts';
import type { EvalReport, Example } from './common.ts';
import type { Stack } from './stack-fit.ts';
import { COMMENTS_VAL_PREFIX, FUNCTIONAL_VAL_PREFIX } from './toxicity-data.ts';

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(3));

/**
 * Markdown: per scorer, the held-out sources and the functional VALIDATION rows (ROC AUC, precision /
 * recall / F1 / FPR at the scorer's flag threshold), then per source and per functionality.
 */
export function validationTable(
  val: readonly Example[],
  cols: number[][],
  scorers: Record<string, (c: number[][]) => number[]>,
  reports: Record<string, EvalReport>,
): string {
  const isFunctional = (e: Example): boolean => e.family.startsWith(FUNCTIONAL_VAL_PREFIX);
  const isComment = (e: Example): boolean => e.family.startsWith(COMMENTS_VAL_PREFIX);
  const groups: [string, (e: Example) => boolean][] = [
    ['held-out sources', (e) => !isFunctional(e) && !isComment(e)],
    ['functional (all)', isFunctional],
    ['comments (all)', isComment],
    ['all validation', () => true],
  ];
  const lines = [
    '| scorer | rows | n | ROC AUC | precision | recall | F1 | FPR | flag_above |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const scored = Object.fromEntries(Object.entries(scorers).map(([name, f]) => [name, f(cols)]));
  for (const [name, s] of Object.entries(scored)) {
    const t = reports[name]!.thresholds.flag_above;
    for (const [g, keep] of groups) {
      const idx = val.map((e, i) => (keep(e) ? i : -1)).filter((i) => i >= 0);
      const m = binaryMetrics(
        idx.map((i) => s[i]!),
        idx.map((i) => val[i]!.label),
        t,
      );
      lines.push(
        `| ${name} | ${g} | ${m.n} | ${f3(m.roc_auc)} | ${f3(m.precision)} | ${f3(m.recall)} | ${f3(m.f1)} | ${f3(m.fpr)} | ${t} |`,
      );
    }
  }
  const families = [...new Set(val.map((e) => e.family))].sort();
  const names = Object.keys(scored);
  lines.push(
    '',
    "Per source family: F1 / ROC AUC at each scorer's flag threshold. Per functionality (one label each): recall of a toxic one, FPR of a benign one.",
    '',
    `| family | n | ${names.join(' | ')} |`,
    `|---|---|${names.map(() => '---|').join('')}`,
  );
  for (const f of families) {
    const idx = val.map((e, i) => (e.family === f ? i : -1)).filter((i) => i >= 0);
    const y = idx.map((i) => val[i]!.label);
    const cells = names.map((name) => {
      const s = idx.map((i) => scored[name]![i]!);
      const t = reports[name]!.thresholds.flag_above;
      const pos = y.filter((v) => v === 1).length;
      if (pos === y.length) return `recall ${f3(s.filter((v) => v > t).length / pos)}`;
      if (pos === 0) return `FPR ${f3(s.filter((v) => v > t).length / y.length)}`;
      return `${f3(binaryMetrics(s, y, t).f1)} / ${f3(rocAuc(s, y))}`;
    });
    lines.push(`| ${f} | ${idx.length} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function semanticCard(o: { version: string; encoder: string; rows: number; l2: number; table: string }): string {
  return `# toxicity-semantic ${o.version} — sentence-encoder toxicity score (stack input)

**Task:** binary text classification (non-toxic / toxic), served only as an input of the toxicity stack
(\`models/toxicity/stack.md\`); it has no thresholds of its own. **Runtime:** the pretrained sentence encoder
${o.encoder} (\`inference/sentence-encoder.ts\`, our ONNX build of USE-lite) + a logistic head (\`head.json\`,
featurizer \`use-lite-head-v1\`): the text's 128-token windows (first and last four of longer text) are
embedded, max-pooled per dimension, standardised and scored.

## Training
Frozen embeddings; the head is fitted by full-batch Adam with L2 ${o.l2} (per row), classes balanced,
deterministic. Rows (${o.rows}): the toxicity model's training rows — \`toxicity.jsonl\` outside the held-out
source families, generated hard negatives (TRAIN templates) and functional TRAIN rows
(\`training/data/toxicity-functional/train.ts\`).

## Validation
Held-out source families of \`toxicity.jsonl\`, functional VALIDATION rows (\`validation.ts\`: other targets,
templates and slot values, written separately) and hard negatives from EVAL templates. Each scorer at its
own thresholds (same policy):

${o.table}

## Retrain
\`npm run train:toxicity\` then \`npm run train:toxicity-stack\` (writes this card).
`;
}

interface GateOutcome {
  benign_early: number;
  detected: number;
  lost: number;
}
export interface GateReport {
  validation: GateOutcome & { below: number };
  cross_fitted: GateOutcome;
  stacking_rows: GateOutcome;
  hard_negatives_early: number;
}

const gateText = (g: GateReport): string => `the lexical model first; the encoder runs only when the lexical score
exceeds ${g.validation.below} (\`cascade.below\`), else the reduced stack decides (at most warn there). No
\`upper_logit\` bound keeps 99.5 % of detections and ends a benign row early (the lexical weight is small), so
the gate is on the lexical score. It is fitted on validation (the highest gate losing ≤ 0.5 % of the stack's
detections): the lexical model trained on most stacking rows, so a gate fitted there (0.20) loses ~10 % on
validation. Judged 2-fold cross-fitted on validation: ${g.cross_fitted.benign_early} of benign rows end early,
losing ${g.cross_fitted.lost} of ${g.cross_fitted.detected} detections (fitted on all of it:
${g.validation.benign_early}, ${g.validation.lost} of ${g.validation.detected}); hard negatives early
${g.hard_negatives_early}; stacking rows ${g.stacking_rows.benign_early}, losing ${g.stacking_rows.lost} of
${g.stacking_rows.detected}.`;

export function stackCard(o: {
  inputs: string[];
  candidates: Record<string, Stack>;
  picked: string;
  reducedSurfaces: readonly string[];
  thresholds: Thresholds;
  table: string;
  stackingRows: number;
  cascade: { stacking: Record<string, number>; validation: Record<string, number> } | null;
  /** the `below` cascade (lexical gate), when it is the one written */
  gate?: GateReport | null;
}): string {
  const p = o.candidates[o.picked]!;
  const w = (xs: number[]): string => xs.map((x) => x.toFixed(4)).join(', ');
  return `# toxicity stack — ${o.inputs.join(' + ')}

The toxicity detector's score is sigmoid(bias + Σ weight · logit(score)) over ${o.inputs.join(' and ')}
(each the max over its own windows): **${o.picked}**, weights [${w(p.weights)}], bias ${p.bias.toFixed(4)}.
Candidates: the z-average of the standardised logits (standardised on ${o.stackingRows} stacking rows:
functional TRAIN rows of another seed, new hard negatives, a seeded sample of the training sources; labels
unused) and a logistic regression fitted on the validation rows (three numbers: a calibration; judged on
2-fold cross-fitted scores, which the \`stack:validation-fit\` rows below are); the better validation ROC
AUC ships.

**Reduced stack** (lexical only: weights [${w(p.reduced.weights)}], bias ${p.reduced.bias.toFixed(4)}; the lexical
logit mapped onto the stack's logit by least squares, so the same thresholds hold): the fast tier, and the surfaces where the encoder does not run (${o.reducedSurfaces.join(', ')}).
**Auto tier:** ${
    o.cascade
      ? `the lexical model first; the encoder runs only when the score could still pass warn with
the encoder's logit at ${o.cascade.stacking.upper} — on the stacking rows ${o.cascade.stacking.benign_early}
of benign rows end early, losing ${o.cascade.stacking.lost} of ${o.cascade.stacking.detected} detections; on
validation ${o.cascade.validation.benign_early}, losing ${o.cascade.validation.lost} of ${o.cascade.validation.detected}.`
      : o.gate
        ? gateText(o.gate)
        : `as accurate (both models on conversation surfaces): at these thresholds no cascade bound that keeps
99.5 % of detections lets a benign row end without the encoder, so the manifest has no \`cascade\`.`
  }

Thresholds (on the stacked score, \`chooseF1Thresholds\` on validation + hard negatives: flag at the F1-best
threshold, warn at the F2-best within 0.05 below it, block at precision 0.95 and FPR ≤ 1 %): warn_above ${o.thresholds.warn_above}, flag_above
${o.thresholds.flag_above}, block_above ${o.thresholds.block_above}.

## Validation
${o.table}

## Retrain
\`npm run train:toxicity\`, then \`npm run train:toxicity-stack\` (rewrites the toxicity-semantic artifact,
the toxicity entry's \`combine\`, \`thresholds\` and \`metrics.stack\`, and this file), then
\`npm run train:thresholds\`.

The auto tier's gate as served is not the one above: \`npm run train:thresholds\` refits \`cascade.below\` on
the service's own scores (windows and spelling view) at the calibrated levels, held to the recall of the
toxic rows above warn (at most 1.5 % of them end early; cross-fitted loss at flag 0.32 %, at warn 1.64 %;
docs/performance.md, "Toxicity's encoder share").
`;
}
