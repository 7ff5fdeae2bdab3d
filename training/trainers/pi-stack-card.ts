/** The card of the accurate tier's stacker (`npm run train:pi-stack`), written to `models/pi-accurate/stack.md`. */
import type { Thresholds } from '../../inference/manifest.ts';

export interface StackCardInput {
  inputs: readonly string[];
  candidates: Readonly<
    Record<string, { weights: number[]; bias: number; reduced: { weights: number[]; bias: number } }>
  >;
  /** surfaces scored by the reduced stack (no `defer` input) */
  reducedSurfaces: readonly string[];
  picked: string;
  /** markdown rows: scorer | per-family recall @ FPR 0.05 / ROC AUC | worst family */
  table: readonly string[];
  thresholds: Thresholds;
  overall: { recall: number; fpr: number; roc_auc: number | null };
  stackingRows: number;
  defer: string;
  cascade: {
    stacking: { q: number; upper: number; benign_early: number; detected: number; lost: number };
    validation: { benign_early: number; detected: number; lost: number };
  };
}

const w = (st: { weights: number[]; bias: number }, inputs: readonly string[]): string =>
  `${st.bias.toFixed(3)} + ${st.weights.map((x, i) => `${x.toFixed(3)}·logit(${inputs[i]})`).join(' + ')}`;

export function stackCard(c: StackCardInput): string {
  const t = c.thresholds;
  return `# The accurate tier's stacker (pi-accurate \`combine\`)

The prompt-injection detector's \`accurate\` tier scores **sigmoid(${w(c.candidates[c.picked]!, c.inputs)})**,
each input the max over its own windows (${c.inputs.join(', ')}), scores clamped to [1e-4, 1 − 1e-4] before the
logit. On ${c.reducedSurfaces.map((x) => `\`${x}\``).join(', ')} — content the sentence encoder was not trained
for, and where it is near chance — the stack is refitted without ${c.defer} and ${c.defer} does not run:
**sigmoid(${w(
    c.candidates[c.picked]!.reduced,
    c.inputs.filter((i) => !i.startsWith(`${c.defer}@`)),
  )})**. Thresholds on that score: warn ${t.warn_above}, flag ${t.flag_above}, block ${t.block_above}, chosen
like every injection model's on the whole-source hold-out of the shared datasets + generated hard negatives:
there recall ${c.overall.recall} at FPR ${c.overall.fpr} (flag), ROC AUC ${c.overall.roc_auc}.

## How it was chosen
${c.stackingRows.toLocaleString('en-US')} stacking rows that are no model's training row and no validation row:
each threat family's TRAIN generator with another seed (new slot fillings of training templates — the base models
score these too well, which would teach a fitted stacker to over-trust them) and a seeded sample of the
training sources of the shared datasets. Two candidates:
${Object.entries(c.candidates)
  .map(
    ([name, st]) =>
      `- **${name}**: sigmoid(${w(st, c.inputs)}); reduced: sigmoid(${w(
        st.reduced,
        c.inputs.filter((i) => !i.startsWith(`${c.defer}@`)),
      )})`,
  )
  .join('\n')}

\`fitted\` is a logistic regression on the stacking rows; \`z-average\` is the mean of the logits standardised over
the stacking rows (no labels used). **${c.picked}** ships: the better worst family on the validation families
(\`models/.eval/families.jsonl\`: each family's VALIDATION generator, wording disjoint from training, against its
benign twins, plus the whole-source hold-out). Recall at FPR 0.05 / ROC AUC:

${c.table.join('\n')}

## The auto tier's cascade
\`auto\` runs ${c.inputs.filter((i) => !i.startsWith(`${c.defer}@`)).join(' and ')} first and asks for ${c.defer} (the sentence
encoder, most of the tier's cost) only when the score with ${c.defer}'s logit at \`upper_logit\` ${c.cascade.stacking.upper}
(its ${c.cascade.stacking.q} quantile over the stacking positives: the lowest quantile that loses at most 0.5 % of
the stack's detections on the stacking rows) could pass warn. Otherwise the scan is decided without it and scores
that bound.

| rows | benign rows decided without ${c.defer} | stack detections (flag) | of them lost by the cascade |
|---|---|---|---|
| stacking | ${c.cascade.stacking.benign_early} | ${c.cascade.stacking.detected} | ${c.cascade.stacking.lost} |
| validation families + hold-out | ${c.cascade.validation.benign_early} | ${c.cascade.validation.detected} | ${c.cascade.validation.lost} |

The service counts it: \`cf_detector_cascade_total{detector="prompt_injection",stage="early"|"full"}\`, and
\`npm run eval -- --tier auto\` prints the share.

## Retrain
After \`npm run train:pi-fast\`, \`npm run train:pi-accurate\` and \`npm run train:pi-semantic -- --write\`, with
\`npm run eval:sets\` done: \`npm run train:pi-stack\` (scores cached in \`models/.cache/pi-stack/\`; \`--dry-run\`
prints without writing). Rewrites the pi-accurate manifest entry's \`combine\`, \`thresholds\` and \`metrics.stack\`,
and this card.
`;
}
