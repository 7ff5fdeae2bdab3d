/**
 * Trains `pii-ner` v0: token classifier (O / PERSON / LOCATION / ORGANIZATION / ADDRESS) — an
 * embedding-bag MLP over hashed per-token context features, exported to ONNX.
 * Run from the repo root: `npm run train:pii-ner`.
 */
import path from 'node:path';
import {
  datasetHash,
  datasetsDir,
  PII_HELDOUT_FAMILIES,
  piiFamily,
  readJsonl,
  type PiiRow,
  type PiiSpan,
} from '../data/datasets.ts';
import { piiStructuredEval, piiStructuredTrain } from '../data/pii-structured.ts';
import { piiSynthEval, piiSynthTrain } from '../data/pii-synth.ts';
import { tokenize, TokenFeaturizer, tokenFeaturizerConfig, type Token } from '../../inference/token-features.ts';
import { exportBagMlpOnnx } from '../onnx-io.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import { loadOnnxTokenClassifier, type Entity } from '../../inference/token-classifier.ts';
import { makeLogger, upsertManifestEntry, writeCard, writeModelFile } from './common.ts';
import { Csr, trainBagMlp } from './trainers.ts';

const ID = 'pii-ner';
const VERSION = '0.2.0';
const SEED = 2718;
const BITS = 17;
const DIM = 32;
const EPOCHS = Number(process.env.NER_EPOCHS ?? 5);
const LR = 0.003;
const L2 = 1e-6;
const DROPOUT = Number(process.env.NER_DROPOUT ?? 0.3);
const MAX_CHARS = 2000;
export const NER_LABELS = ['O', 'PERSON', 'LOCATION', 'ORGANIZATION', 'ADDRESS'];
/** Source labels -> model labels (anything else, e.g. MISC, DATE_TIME, EMAIL_ADDRESS, is O). */
const LABEL_MAP: Record<string, string> = {
  PERSON: 'PERSON',
  LOCATION: 'LOCATION',
  GPE: 'LOCATION',
  ORGANIZATION: 'ORGANIZATION',
  STREET_ADDRESS: 'ADDRESS',
};

const log = makeLogger(ID);
const t0 = Date.now();

interface Doc {
  text: string;
  spans: PiiSpan[];
  family: string;
}

const file = path.join(datasetsDir(), 'pii.jsonl');
const rows = readJsonl<PiiRow>(file);
const mapSpans = (spans: PiiSpan[]): PiiSpan[] =>
  spans
    .filter((s) => LABEL_MAP[s.label])
    .map((s) => ({ start: s.start, end: s.end, label: LABEL_MAP[s.label] as string }));
const docs: Doc[] = rows.map((r) => ({ text: r.text, spans: mapSpans(r.spans ?? []), family: piiFamily(r.source) }));
const isVal = (f: string): boolean => PII_HELDOUT_FAMILIES.includes(f);
const trainDocs = docs.filter((d) => !isVal(d.family));
const valDocs = docs.filter((d) => isVal(d.family));
const synthTrain = piiSynthTrain();
const synthEval = piiSynthEval();
for (const s of synthTrain) trainDocs.push({ text: s.text, spans: s.spans, family: 'generated/faker-train' });
for (const s of synthEval) valDocs.push({ text: s.text, spans: s.spans, family: 'generated/faker-eval-templates' });
// sentences with e-mails, phones, cards, IBANs, IPs, VINs ... next to names: identifiers are not names
const nerOnly = (spans: PiiSpan[]): PiiSpan[] => spans.filter((x) => x.label === 'PERSON' || x.label === 'ADDRESS');
for (const s of piiStructuredTrain())
  trainDocs.push({ text: s.text, spans: nerOnly(s.spans), family: 'generated/structured-train' });
for (const s of piiStructuredEval(400))
  valDocs.push({ text: s.text, spans: nerOnly(s.spans), family: 'generated/structured-eval-templates' });
log(`pii data: train docs ${trainDocs.length}, validation docs ${valDocs.length}`);

// ---------------------------------------------------------------------------------------------
// token labels and features

const cfg = tokenFeaturizerConfig(1 << BITS);
const featurizer = new TokenFeaturizer(cfg);
const L = cfg.max_features;
const labelIndex = new Map(NER_LABELS.map((l, i) => [l, i]));

function tokenLabels(tokens: Token[], spans: PiiSpan[]): number[] {
  const out = new Array<number>(tokens.length).fill(0);
  for (const s of spans) {
    const li = labelIndex.get(s.label) ?? 0;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i] as Token;
      if (t.start >= s.start && t.start < s.end) out[i] = li;
    }
  }
  return out;
}

const csr = new Csr();
const labelList: number[] = [];
let ids = new Int32Array(L * 256);
let vals = new Float32Array(L * 256);
for (const d of trainDocs) {
  const toks = tokenize(d.text);
  if (toks.length === 0) continue;
  if (ids.length < toks.length * L) {
    ids = new Int32Array(toks.length * L * 2);
    vals = new Float32Array(toks.length * L * 2);
  }
  featurizer.featurize(d.text, toks, ids, vals, 0);
  const labs = tokenLabels(toks, d.spans);
  for (let i = 0; i < toks.length; i++) {
    csr.push(ids.subarray(i * L, (i + 1) * L), vals.subarray(i * L, (i + 1) * L), L);
    labelList.push(labs[i] as number);
  }
}
const labels = Int32Array.from(labelList);
const counts = NER_LABELS.map((_, c) => labelList.filter((x) => x === c).length);
log(`training tokens ${labels.length}: ${NER_LABELS.map((l, c) => `${l} ${counts[c]}`).join(', ')}`);
const weights = new Float32Array(labels.length).fill(1);

const params = trainBagMlp(
  csr,
  labels,
  weights,
  { buckets: cfg.buckets, dim: DIM, classes: NER_LABELS.length },
  { epochs: EPOCHS, batchSize: 64, lr: LR, l2: L2, seed: SEED, finalLrFraction: 0.1, featureDropout: DROPOUT, log },
);
const onnxBytes = exportBagMlpOnnx(params, {
  modelId: ID,
  version: VERSION,
  docString: 'pii-ner: embedding-bag MLP token classifier over hashed-token-v1 features',
});
const written = writeModelFile(ID, 'model.onnx', onnxBytes);
log(`wrote ${written.file} (${(written.bytes / 1e6).toFixed(1)} MB)`);

const entry: ModelEntry = {
  id: ID,
  version: VERSION,
  task: 'token-classification',
  runtime: 'onnx',
  file: written.file,
  sha256: written.sha256,
  featurizer: {
    ...cfg,
    embedding_dim: DIM,
    output: 'probs [T, C] = softmax(relu(bag + b0) @ W + b)',
    decoding:
      'see decodeEntities in inference/token-classifier.ts: argmax per token; glue punctuation bridged; runs of non-O tokens split at line breaks or between confident tokens with different labels, each segment one entity with the label of largest summed probability; punctuation trimmed at ends; confidence = mean token max-prob',
  } as unknown as Record<string, unknown>,
  labels: NER_LABELS,
  max_chars: MAX_CHARS,
};

// ---------------------------------------------------------------------------------------------
// evaluation through the serving path: entity-level strict (exact span + label) and overlap matching

const WORDISH = /[\p{L}\p{N}]/u;
function goldEntities(text: string, spans: PiiSpan[]): Entity[] {
  const toks = tokenize(text);
  const out: Entity[] = [];
  for (const s of spans) {
    const inside = toks.filter((t) => t.start < s.end && t.end > s.start && WORDISH.test(t.text));
    if (inside.length === 0) continue;
    out.push({
      start: (inside[0] as Token).start,
      end: (inside[inside.length - 1] as Token).end,
      label: s.label,
      confidence: 1,
    });
  }
  return out;
}

const ner = await loadOnnxTokenClassifier(entry);
const predicted: Entity[][] = [];
for (let i = 0; i < valDocs.length; i += 64)
  predicted.push(...(await ner.entitiesBatch(valDocs.slice(i, i + 64).map((d) => d.text))));

type Counts = { tp: number; fp: number; fn: number; otp: number; ofp: number; ofn: number };
const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0, otp: 0, ofp: 0, ofn: 0 });
const byFamilyLabel = new Map<string, Counts>();
const add = (k: string, f: (c: Counts) => void): void => {
  const c = byFamilyLabel.get(k) ?? zero();
  f(c);
  byFamilyLabel.set(k, c);
};
valDocs.forEach((d, i) => {
  const gold = goldEntities(d.text, d.spans);
  const pred = predicted[i] ?? [];
  const key = (e: Entity): string => `${e.start}:${e.end}:${e.label}`;
  const gk = new Set(gold.map(key));
  const pk = new Set(pred.map(key));
  const overlaps = (a: Entity, b: Entity): boolean => a.label === b.label && a.start < b.end && b.start < a.end;
  for (const fam of [d.family, 'ALL']) {
    for (const g of gold) {
      add(`${fam}|${g.label}`, (c) => (pk.has(key(g)) ? c.tp++ : c.fn++));
      add(`${fam}|${g.label}`, (c) => (pred.some((p) => overlaps(p, g)) ? c.otp++ : c.ofn++));
    }
    for (const p of pred) {
      if (!gk.has(key(p))) add(`${fam}|${p.label}`, (c) => c.fp++);
      if (!gold.some((g) => overlaps(p, g))) add(`${fam}|${p.label}`, (c) => c.ofp++);
    }
  }
});
const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const prf = (tp: number, fp: number, fn: number): { precision: number; recall: number; f1: number } => {
  const p = tp + fp ? tp / (tp + fp) : 0;
  const r = tp + fn ? tp / (tp + fn) : 0;
  return { precision: r4(p), recall: r4(r), f1: r4(p + r ? (2 * p * r) / (p + r) : 0) };
};
const families = ['ALL', ...new Set(valDocs.map((d) => d.family))];
const metrics: Record<string, Record<string, unknown>> = {};
for (const fam of families) {
  const perLabel: Record<string, unknown> = {};
  const tot = zero();
  for (const l of NER_LABELS.slice(1)) {
    const c = byFamilyLabel.get(`${fam}|${l}`);
    if (!c) continue;
    for (const k of Object.keys(tot) as (keyof Counts)[]) tot[k] += c[k];
    perLabel[l] = { support: c.tp + c.fn, strict: prf(c.tp, c.fp, c.fn), overlap: prf(c.otp, c.ofp, c.ofn) };
  }
  metrics[fam] = {
    micro: { support: tot.tp + tot.fn, strict: prf(tot.tp, tot.fp, tot.fn), overlap: prf(tot.otp, tot.ofp, tot.ofn) },
    ...perLabel,
  };
  log(`${fam}: ${JSON.stringify(metrics[fam])}`);
}

// latency: entities in 1,000 characters
const pool = valDocs.map((d) => d.text).join(' ');
const texts = Array.from({ length: 40 }, (_, i) => Buffer.from(pool.slice(i * 1000, (i + 1) * 1000)).toString());
for (let i = 0; i < 10; i++) await ner.entitiesBatch([texts[i % texts.length] as string]);
const times: number[] = [];
for (let i = 0; i < 60; i++) {
  const a = process.hrtime.bigint();
  await ner.entitiesBatch([texts[i % texts.length] as string]);
  times.push(Number(process.hrtime.bigint() - a) / 1e6);
}
times.sort((a, b) => a - b);
const latencyMs = Math.round((times[Math.floor(times.length / 2)] as number) * 1000) / 1000;
log(`latency (median) ${latencyMs} ms per 1,000 characters`);

const trainSeconds = Math.round((Date.now() - t0) / 1000);
const dataSha256 = datasetHash([file]);
upsertManifestEntry({
  ...entry,
  metrics: {
    validation:
      'entity level on held-out sources: CoNLL-2003 eng.testa, presidio synth templates with id % 5 == 0, faker and structured-identifier sentences from held-out templates; strict = exact span and label, overlap = same label and overlapping span',
    ...metrics,
    latency_ms_per_1000_chars: latencyMs,
    train_seconds: trainSeconds,
  },
  training_data_sha256: dataSha256,
  seed: SEED,
});

const table = (fam: string): string => {
  const m = metrics[fam] as Record<
    string,
    { support: number; strict: { precision: number; recall: number; f1: number }; overlap: { f1: number } }
  >;
  const lines = ['| label | support | precision | recall | F1 (strict) | F1 (overlap) |', '|---|---|---|---|---|---|'];
  for (const [l, v] of Object.entries(m))
    lines.push(
      `| ${l} | ${v.support} | ${v.strict.precision} | ${v.strict.recall} | ${v.strict.f1} | ${v.overlap.f1} |`,
    );
  return lines.join('\n');
};

writeCard(
  ID,
  `# pii-ner ${VERSION} — person / location / organization / address entities (v0)

**Task:** token classification, labels ${NER_LABELS.map((l) => `\`${l}\``).join(', ')}. **Runtime:** \`onnx\`
(onnxruntime-node, \`inference/token-classifier.ts\` \`loadOnnxTokenClassifier\`, which returns entities with UTF-16
offsets into each input text). **File:** \`model.onnx\` (${(written.bytes / 1e6).toFixed(1)} MB, opset 13, IR 8).

Label choice: LOCATION = source LOCATION + GPE (cities, countries, regions); ADDRESS = STREET_ADDRESS kept
separate (a street address together with the city / state / postcode written with it is one ADDRESS
entity), because a street address is more sensitive than a place name. MISC, DATE_TIME, TITLE, NRP and
the pattern-like types (e-mail, phone, card numbers ...) are \`O\` here; they are for regex detectors.

## Method
Tokens: runs of letters/digits/marks and single punctuation characters (\`${cfg.tokenizer}\`), with offsets.
Per token ${cfg.max_features} hashed features (\`hashed-token-v1\`, 2^${BITS} buckets, each valued 1/sqrt(${cfg.max_features})):
lowercased word, word shape (Xxxx, dd, ...) and short shape, prefixes (1–3) and suffixes (2–4),
capitalisation / digit / punctuation flags, length bucket, sentence start and newline-before flags, the
previous two and next two words, neighbours' shapes, and conjunctions (prev word + shape, word + next
word, shape trigram, prev word + word). Model: embedding bag (dim ${DIM}) → +bias → ReLU → linear → softmax
(\`probs\` [T, ${NER_LABELS.length}]); all tokens of a batch of texts go through one session run. Decoding: argmax per token;
consecutive tokens with the same non-O label form one entity (first token start → last token end);
punctuation-only tokens at entity ends are dropped; confidence = mean of the tokens' max probabilities.

Trained in TypeScript with mini-batch Adam (batch 64 tokens, lr ${LR} → ${LR / 10}, ${EPOCHS} epochs, L2 ${L2.toExponential()},
feature dropout ${DROPOUT}), seed ${SEED}. Training tokens: ${labels.length} (${NER_LABELS.map((l, c) => `${l} ${counts[c]}`).join(', ')}).
Training + evaluation took ${trainSeconds} s on 2 cores.

## Data
\`pii.jsonl\` (shared datasets, read at training time, never shipped; sha256 \`${dataSha256}\`): CoNLL-2003
\`eng.train\` (Reuters news, pre-tokenised) and microsoft/presidio-research synthetic sentences (templates
whose id % 5 != 0). Plus ${synthTrain.length} generated sentences (\`training/data/pii-synth.ts\`, @faker-js/faker with fixed
seeds, 26 locales incl. Japanese, Chinese, Russian, Arabic, Korean, Greek names): messages, forms, e-mails and
requests with names, street addresses, cities, countries and companies, with casing variants (15 % all
lowercase, 5 % all caps, 10 % lowercase names) so that lowercase and unusual names are covered, and
sentences without entities (capitalised common words). Plus 2,000 structured-identifier sentences
(\`training/data/pii-structured.ts\`: e-mails, phones, SSNs, cards, IBANs, account numbers, IPs, MACs, VINs next
to names and US street addresses; only PERSON and ADDRESS are NER labels there, the identifiers are
\`O\`, which teaches that an identifier is not a name — the regex recognizers report identifiers).

**Validation (held out by source):** CoNLL-2003 \`eng.testa\`; presidio templates with id % 5 == 0; ${synthEval.length}
faker sentences from EVAL templates (every fourth template, never used in training); 400 structured
sentences from EVAL templates. End-to-end numbers with the regex recognizers: \`npm run eval:sets &&
npm run eval -- --detector pii --tier accurate --input models/.eval/pii.jsonl --output /tmp/pii.jsonl\`.

## Metrics (entity level; strict = exact span and label)
All held-out data:

${table('ALL')}

CoNLL-2003 eng.testa:

${table('conll2003:eng.testa')}

presidio held-out templates:

${table('presidio-synth:heldout-templates')}

faker held-out templates:

${table('generated/faker-eval-templates')}

structured-identifier held-out templates:

${table('generated/structured-eval-templates')}

Latency (onnxruntime, 1 thread, median): ${latencyMs} ms per 1,000 characters (tokenization and
featurization included).

## Known weaknesses
- No BIO tags: two adjacent entities of the same type with nothing between them merge into one.
- Word-level context only (±2 words); long-range cues are missed. Lowercase names are found mainly from
  context ("my name is", "Dear", "Mr.") and from the name lists faker provides; rare names in unusual
  contexts are missed, capitalised common words at sentence start are sometimes tagged.
- CoNLL is 1990s Reuters news (sports results, politics); chat-style text relies on the generated
  sentences. ORGANIZATION vs LOCATION confusion for sports teams and countries (CoNLL convention).
- Addresses: formats outside the faker locales used (US, UK, DE, FR, ES, IT, NL, IN, BR) are weaker.

## Retrain
\`npm run train:pii-ner\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`); rewrites
\`models/pii-ner/model.onnx\`, this card and the manifest entry. Deterministic.
`,
);
log('done');
