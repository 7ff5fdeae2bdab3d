/** The model card of `pi-accurate` (written by `pi-accurate.ts` from the run's numbers). */
import { chunkOverlap } from '../../engine/chunk.ts';
import { INJECTION_HELDOUT_FAMILIES } from '../data/datasets.ts';
import type { TransformerConfig } from '../transformer.ts';
import { reportMarkdown, type EvalReport } from './common.ts';
import type { InjectionData } from './injection-data.ts';
import type { TrainingSet, TransformerTrainOptions } from './transformer-trainer.ts';

export interface CardInput {
  version: string;
  config: TransformerConfig;
  /** The trainer's hyper-parameters, as the card reports them. */
  hp: Pick<
    TransformerTrainOptions,
    | 'steps'
    | 'batchSize'
    | 'batchesPerMacro'
    | 'lr'
    | 'warmupSteps'
    | 'finalLrFraction'
    | 'clipNorm'
    | 'maxChars'
    | 'posMaxWindows'
    | 'rowOverlapTokens'
    | 'familyCap'
  >;
  params: number;
  charsPerToken: number;
  data: InjectionData;
  set: TrainingSet;
  trainSeconds: number;
  finalLoss: number;
  shipped: 'float32' | 'int8';
  int8Decision: string;
  temperature: number;
  variants: {
    name: 'float32' | 'int8';
    bytes: number;
    report: EvalReport;
    recallAtFpr: Record<string, number>;
    latency: { p50_ms: number; p99_ms: number; windows: number; tokenize_ms_per_1000_chars: number };
  }[];
  ensemble: EvalReport;
  ensembleRecall: Record<string, number>;
  fastRecall: Record<string, number>;
  fastVersion: string;
  fastAuc: number | null;
  fastPerSource: EvalReport['per_source'];
  seed: number;
}

const fmtRecall = (r: Record<string, number>): string => `${r['fpr_0.01']} / ${r['fpr_0.02']} / ${r['fpr_0.05']}`;

export function piAccurateCard(c: CardInput): string {
  const { config: m, hp } = c;
  const shipped = c.variants.find((v) => v.name === c.shipped) ?? c.variants[0];
  if (!shipped) throw new Error('no evaluated variant');
  const variantRows = c.variants.map((v) => {
    const o = v.report.overall;
    return `| ${v.name}${v.name === c.shipped ? ' (shipped)' : ''} | ${(v.bytes / 1e6).toFixed(2)} MB | ${o.roc_auc} | ${o.recall} @ flag ${o.threshold} (FPR ${o.fpr}) | ${fmtRecall(v.recallAtFpr)} | ${v.report.hard_negatives.fpr_flag} | ${v.latency.p50_ms} / ${v.latency.p99_ms} ms |`;
  });
  const e = c.ensemble.overall;
  const src = (f: string): string => {
    const r = shipped.report.per_source[f];
    return r
      ? `\`${f}\` recall ${r.recall_flag} at flag (${r.recall_0_5} at 0.5${r.roc_auc != null ? `, ROC AUC ${r.roc_auc}` : ''})`
      : `\`${f}\` n/a`;
  };
  const fastSrc = (f: string): string => `recall ${c.fastPerSource[f]?.recall_flag ?? '?'} at its flag`;
  return `# pi-accurate ${c.version} — prompt injection, accurate tier

**Task:** binary text classification (benign / injection or jailbreak). **Runtime:** \`onnx\`
(onnxruntime-node via \`inference/text-classifier.ts\` \`loadOnnxClassifier\`, featurizer \`wordpiece-v1\`).
**Files:** \`model.onnx\` (${c.shipped}, ${(shipped.bytes / 1e6).toFixed(2)} MB, opset 17, IR 8) and \`tokenizer.json\`
(both sha256-checked at load). **Training data sha256:** \`${c.data.dataSha256}\`. Seed ${c.seed}.

## Architecture
A small encoder-only transformer (\`training/transformer.ts\`, ${c.params.toLocaleString('en')} parameters):
token embeddings (${m.vocab_size} × ${m.d_model}) + learned position embeddings (${m.max_tokens} × ${m.d_model}),
${m.blocks} pre-LayerNorm blocks (${m.heads}-head self-attention with a fused QKV projection, FFN ${m.d_model}→${m.ffn}→${m.d_model} with ReLU),
final LayerNorm (epsilon ${m.layer_norm_epsilon}), masked mean pooling, dense → sigmoid. The graph takes
\`input_ids\` int64 [N, T ≤ ${m.max_tokens}] (0 = padding; the attention mask is derived in the graph) and returns
\`scores\` float32 [N].

**Tokenizer** (\`inference/wordpiece.ts\`, shared by training and serving): lowercased; words (letter/digit/mark
runs), single punctuation characters and line-break runs (\`<nl>\`); a ${m.vocab_size}-piece vocabulary learned
with BPE merges over the words of the training split only, applied WordPiece-style (greedy longest
match, \`##\` continuation pieces); byte fallback (256 byte tokens) for characters outside the alphabet,
so no input is unknown. ${c.charsPerToken} characters per token on the held-out texts.

**Windows.** The engine scores max over windows of \`max_chars\` = ${hp.maxChars} characters (about 120 tokens); a
window longer than ${m.max_tokens} tokens is split into overlapping rows (${hp.rowOverlapTokens} tokens shared) and scored as
the max over its rows, so no part of the input goes unseen.

## Training
TensorFlow.js 4.22 on the wasm backend (SIMD, one thread; the embedding gradient is a custom
\`scatterND\` gradient, dense-layer gradients use explicit transposes — see
\`docs/decisions/0003-transformer-on-tfjs-wasm.md\`). Adam (β2 0.98), lr ${hp.lr} with ${hp.warmupSteps} warm-up steps and
cosine decay to ${hp.finalLrFraction * hp.lr}, gradient clipping at global norm ${hp.clipNorm}, ${hp.steps} steps of ${hp.batchSize} rows
(${(hp.steps * hp.batchSize).toLocaleString('en')} rows seen); training took ${Math.round(c.trainSeconds / 60)} min on one core (final loss EMA ${c.finalLoss.toFixed(3)}).

- Items: every ${hp.maxChars}-char window of a benign text is a benign item; a positive is one
  multiple-instance group of the rows of its first ${hp.posMaxWindows} windows — the current model scores them without
  gradient and the highest-scoring row is trained on (the engine takes the max over windows). ${c.set.items.length.toLocaleString('en')}
  items (${c.set.positives.toLocaleString('en')} positive groups), ${c.set.rows.toLocaleString('en')} rows.
- Balance: families above ${hp.familyCap} items damped by sqrt(${hp.familyCap}/size), each class half the total weight; batches
  are drawn by weighted sampling with replacement (fixed compute budget), length-sorted within groups of
  ${hp.batchesPerMacro} batches to cut padding.
- Checkpoints every 3 minutes in \`models/.checkpoints/pi-accurate/\` (gitignored); a re-run resumes.

## Data
\`injection.jsonl\` + \`injection_extra.jsonl\` (shared datasets, read at training time) plus the generated
data of \`training/trainers/injection-data.ts\` (injection data v2: translated, leetspeak and length-matched rows): ${JSON.stringify(c.data.stats)}.

**Validation, held out by source family** (never trained on, tokenizer included): ${INJECTION_HELDOUT_FAMILIES.map((f) => `\`${f}\``).join(', ')};
plus ${c.data.stats.hardEval} generated hard negatives from EVAL templates.

## Metrics (held-out, ${c.shipped})
${reportMarkdown(shipped.report)}

Recall at a fixed FPR on held-out negatives (hard negatives included), FPR 0.01 / 0.02 / 0.05:
${fmtRecall(shipped.recallAtFpr)}.

**Calibration.** The trained model is over-confident on held-out families: its scores are divided in
the logit domain by a temperature τ = ${c.temperature}, fitted by log loss on the held-out rows (folded into the head's
weights, the graph is unchanged). Monotone: ROC AUC and recall at a fixed FPR do not change; it moves
the thresholds off their clamps (flag ≤ 0.97, block ≤ 0.995; uncalibrated, flag sat at 0.97 with 3.4 %
held-out FPR) so the FPR targets can be met. Like the thresholds, it is fitted on the held-out rows.

Thresholds as for the other classifiers (\`chooseThresholds\`): per level the larger of the
precision-target threshold (warn ≥ 0.80, flag ≥ 0.90, block ≥ 0.97) and the FPR-target threshold on
held-out negatives (warn ≤ 5 %, flag ≤ 2 %, block ≤ 0.5 %), clamped to be increasing.

### float32 vs int8
int8: the embedding table and the block matrices stored as symmetric per-channel int8
(DequantizeLinear / Gather-then-scale); at ORT's \`all\` optimisation level the DequantizeLinear →
MatMul pairs become dynamically quantised int8 matmuls (activations quantised too), so scores differ
from float32 by up to ~1e-3.

Decision: ${c.int8Decision}.

| weights | file | ROC-AUC | recall @ flag | recall @ FPR 0.01 / 0.02 / 0.05 | hard-neg FPR @ flag | p50 / p99, 1,000 chars |
|---|---|---|---|---|---|---|
${variantRows.join('\n')}

Latency: one thread, a 1,000-character text = the engine's ${shipped.latency.windows} windows (${hp.maxChars} chars, overlap
${chunkOverlap(hp.maxChars)}) in one \`scoreBatch\`, tokenization included (${shipped.latency.tokenize_ms_per_1000_chars} ms per 1,000 chars, cold cache).

### Ensemble with pi-fast
mean(pi-accurate, pi-fast), each the max over its own windows, on the same held-out rows, thresholds
chosen the same way: ROC-AUC ${e.roc_auc}, recall ${e.recall} at flag ${e.threshold} (FPR ${e.fpr}), recall at FPR 0.01 / 0.02 / 0.05
${fmtRecall(c.ensembleRecall)} (pi-fast alone: ${fmtRecall(c.fastRecall)}); hard-negative FPR at flag ${c.ensemble.hard_negatives.fpr_flag}.
Per source: \`metrics.ensemble_with_pi_fast\` in the manifest.

This trainer writes the manifest entry with \`combine: {with: "pi-fast", method: "mean"}\` and the ensemble's
thresholds (the transformer-alone thresholds are kept in \`metrics.model_alone_thresholds\`). **What the accurate
tier serves** is then set by \`npm run train:pi-stack\`: a logistic stacker over pi-accurate, pi-fast and
pi-semantic that replaces \`combine\` and the thresholds (its card: \`stack.md\` beside this one).
Measure it through the engine with \`npm run eval:sets && npm run eval -- --detector prompt_injection --tier accurate --input models/.eval/injection.jsonl --output /tmp/pi.jsonl\`.

## Known weaknesses
- Indirect, task-style injections that read like ordinary requests remain the main misses:
  ${src('microsoft/BIPIA#email')}; ${src('NVIDIA/garak#latent_injection')} (pi-fast: ${fastSrc('NVIDIA/garak#latent_injection')}).
  The model is small and briefly trained (${Math.round(c.trainSeconds / 60)} min on one CPU core): it learns phrasing more than intent.
- Benign prompts in an instruction-giving register: \`f/awesome-chatgpt-prompts\` FPR ${shipped.report.per_source['f/awesome-chatgpt-prompts']?.fpr_flag ?? '?'} at flag, hard-negative
  "act as" ${shipped.report.hard_negatives.by_category.act_as?.fpr_warn ?? '?'} above warn, "everyday" ${shipped.report.hard_negatives.by_category.everyday?.fpr_flag ?? '?'} above flag; security writing about injection (OWASP cheat sheets).
- Only modestly ahead of pi-fast ${c.fastVersion} on these rows (ROC AUC ${shipped.report.overall.roc_auc} vs ${c.fastAuc}; recall at FPR 0.02 ${shipped.recallAtFpr['fpr_0.02']} vs ${c.fastRecall['fpr_0.02']});
  the mean of the two is better than either (above) — worth using for the accurate tier.
- The temperature and the thresholds are fitted on the held-out rows they are reported on; ranking metrics
  (ROC AUC, recall at a fixed FPR) are not affected by either.
- Lowercased input; the vocabulary is English-centric (other scripts fall back to bytes and are weakly modelled).
- Positives longer than ${hp.posMaxWindows} windows are trained on their first ${hp.posMaxWindows} windows only.

## Retrain
\`npm run train:pi-accurate\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`); about
${Math.round(c.trainSeconds / 60) + 3} min on one core. Resumes from \`models/.checkpoints/pi-accurate/\` unless \`--fresh\`; a
finished checkpoint is only re-exported and re-evaluated. Rewrites \`model.onnx\`, \`tokenizer.json\`, this card
and the manifest entry. Deterministic for a given data hash. \`PI_ACC_INT8=1\` ships the int8 graph.
`;
}
