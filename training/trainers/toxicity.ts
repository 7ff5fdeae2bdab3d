/**
 * Trains `toxicity`: embedding-bag MLP over hashed text features, exported to ONNX. The detector serves
 * it stacked with the sentence-encoder model (`npm run train:toxicity-stack`, run after this one: it
 * writes the entry's `combine` and the thresholds the detector uses).
 * Run from the repo root: `npm run train:toxicity`.
 */
import { TOXICITY_HELDOUT_FAMILIES } from '../data/datasets.ts';
import { makeLogger, reportMarkdown, writeCard } from './common.ts';
import { trainBagClassifier } from './bag-classifier.ts';
import { loadToxicityData } from './toxicity-data.ts';

const ID = 'toxicity';
const VERSION = '0.2.0';
const SEED = 9001;
const BITS = 16;
const DIM = Number(process.env.TOX_DIM ?? 32);
const MAX_CHARS = 2000;
const EPOCHS = Number(process.env.TOX_EPOCHS ?? 6);
const LR = 0.003;
const L2 = 1e-6;
const DROPOUT = Number(process.env.TOX_DROPOUT ?? 0.5);
const FAMILY_CAP = 3000;

const log = makeLogger(ID);
const t0 = Date.now();
const { train, val, hardEval, dataSha256, counts } = loadToxicityData(log);

const res = await trainBagClassifier(
  {
    id: ID,
    version: VERSION,
    seed: SEED,
    bits: BITS,
    dim: DIM,
    maxFeatures: 4096,
    maxChars: MAX_CHARS,
    posCapChars: MAX_CHARS,
    familyCap: FAMILY_CAP,
    labels: ['non-toxic', 'toxic'],
    train,
    val,
    hardEval,
    trainOptions: { epochs: EPOCHS, batchSize: 64, lr: LR, l2: L2, finalLrFraction: 0.1, featureDropout: DROPOUT },
    dataSha256,
    heldoutFamilies: TOXICITY_HELDOUT_FAMILIES,
    log,
  },
  t0,
);
const trainSeconds = Math.round((Date.now() - t0) / 1000);

writeCard(
  ID,
  `# toxicity ${VERSION} — toxic / offensive language (lexical model)

**Task:** binary text classification (non-toxic / toxic-offensive-hateful). **Runtime:** \`onnx\`
(onnxruntime-node, \`loadOnnxClassifier\`). **File:** \`model.onnx\` (${(res.bytes / 1e6).toFixed(1)} MB, opset 13, IR 8).

## Method
Same architecture as pi-accurate: embedding-bag MLP over \`hashed-text-v1\` features (word unigrams +
bigrams, char 3–5-grams; 2^${BITS} buckets, embedding dim ${DIM}; ≤ ${res.cfg.max_features} distinct buckets per
row) → ReLU → sigmoid, exported to ONNX by hand (\`training/onnx-io.ts\`). Trained in TypeScript with
mini-batch Adam (batch 64, lr ${LR} → ${LR / 10}, ${EPOCHS} epochs, L2 ${L2.toExponential()}, feature dropout ${DROPOUT}), seed ${SEED};
classes re-weighted to equal total weight, families above ${FAMILY_CAP} rows damped by sqrt(${FAMILY_CAP}/size).
Training rows: ${res.trainRows}; training + evaluation took ${trainSeconds} s on 2 cores.

## Data
\`toxicity.jsonl\` (shared datasets, read at training time; sha256 \`${dataSha256}\`): t-davidson hate speech
and offensive language (tweets, 83 % positive), cardiffnlp/tweeteval offensive (OLID), microsoft/TOXIGEN
prompts and demonstrations. Plus ${counts.hardTrain} generated hard negatives (\`training/data/hard-negatives.ts\`,
TRAIN templates): violent or vulgar-sounding words in benign senses ("kill the process", "beat the eggs"),
strong feelings without insults, identity terms in neutral or supportive statements, discussions of
moderation. Plus ${counts.functionalTrain} generated functional rows (\`training/data/toxicity-functional/\`, TRAIN
specs \`train.ts\` and \`train-extra*.ts\`): per HateCheck-style functionality templates over protected-group
targets — explicit and implicit derogation, dehumanisation, threats, negated positive statements, hate as a
question or an opinion, abuse of individuals, and the same five spelling obfuscations (added spaces, leet,
swapped, dropped characters, joined words) — with benign twins: negated hate, counter-speech quoting hate,
reports of hate, neutral and positive statements about the groups, homonyms of slurs, reclaimed in-group
terms, abuse of objects. Plus ${counts.commentsTrain} generated discussion comments (\`training/data/toxicity-comments/train*.ts\`):
wiki talk pages, news and forum threads, code review, reviews and gaming chat — personal attacks, insults with
profanity, threats, identity attacks and harassment against the people in a discussion, with civil twins
(firm disagreement, harsh criticism of the work, frustration at no one, moderation talk, friendly banter).

**Served as a stack.** The detector does not use this model's thresholds: \`npm run train:toxicity-stack\`
stacks it with the sentence-encoder model \`toxicity-semantic\` and writes the entry's \`combine\` and
thresholds — see \`stack.md\` beside this card for the served numbers. The tables below are this model
alone, at thresholds chosen by the injection models' rule.

**Validation, held out by source** (never trained on): ${TOXICITY_HELDOUT_FAMILIES.map((f) => `\`${f}\``).join(', ')}
(the tweeteval test file is a different file of the same OLID distribution as the training files; the
ToxiGen target groups are unseen groups); ${counts.functionalVal} functional VALIDATION rows (\`validation*.ts\`:
another author's templates over other targets with other slot values — \`val:functional:*\` below);
${counts.commentsVal} discussion-comment VALIDATION rows (\`toxicity-comments/validation*.ts\`, another author —
\`val:comments:*\`); plus
${hardEval.length} generated hard negatives from EVAL templates.

## Metrics (held-out)
${reportMarkdown(res.report)}

Thresholds: per level the larger of the precision-target threshold (warn ≥ 0.80, flag ≥ 0.90, block ≥
0.97) and the FPR-target threshold on held-out negatives incl. hard negatives (warn ≤ 5 %, flag ≤ 2 %,
block ≤ 0.5 %), clamped to be increasing.

Latency (onnxruntime, 1 thread, median): ${res.latency.single_1000_chars_ms} ms for one 1,000-character text,
${res.latency.batch16_1000_chars_ms} ms for a batch of 16.

## Known weaknesses
- Tweets only (2009–2019 style, @mentions, slang); long-form text, code, and LLM outputs are out of
  distribution. Davidson labels are driven by swear words and slurs, so profanity without a target is
  scored as toxic, and polite, implicit hate (ToxiGen-style) is often missed.
- Identity terms: the model may still associate group names with toxicity (see hard-negative FPR by
  category); treat flags on identity-related text with care.
- English only. Bag of n-grams: negation and quotation ("he called me an idiot") are not understood —
  the sentence encoder in the stack carries most of that (stack.md, per functionality).

## Retrain
\`npm run train:toxicity\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`);
rewrites \`models/toxicity/model.onnx\`, this card and the manifest entry. Deterministic.
`,
);
log('done');
