/**
 * Trains `pii-ner`: token classifier (O / PERSON / LOCATION / ORGANIZATION / ADDRESS) — an
 * embedding-bag MLP over hashed per-token context features (`hashed-token-v2`: v1 + case-insensitive
 * name features over a name gazetteer shipped next to the model), exported to ONNX.
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
import { socialNamesEval, socialNamesTrain } from '../data/social-names.ts';
import { buildGazetteerTsv } from '../data/social-names-gazetteer.ts';
import { NameGazetteer } from '../../inference/name-gazetteer.ts';
import { tokenize, TokenFeaturizer, tokenFeaturizerConfig, type Token } from '../../inference/token-features.ts';
import { exportBagMlpOnnx } from '../onnx-io.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import { loadOnnxTokenClassifier, type Entity } from '../../inference/token-classifier.ts';
import { makeLogger, upsertManifestEntry, writeCard, writeModelFile } from './common.ts';
import { nerCard } from './pii-ner-card.ts';
import { scoreEntities, type NerDoc } from './pii-ner-eval.ts';
import { Csr, trainBagMlp } from './trainers.ts';
import { mulberry32 } from '../prng.ts';
import { hashString } from '../../inference/hashing.ts';

const ID = 'pii-ner';
const VERSION = '0.3.0';
const SEED = 2718;
const BITS = 17;
const DIM = 32;
const EPOCHS = Number(process.env.NER_EPOCHS ?? 7);
const LR = 0.003;
const L2 = 1e-6;
const DROPOUT = Number(process.env.NER_DROPOUT ?? 0.3);
/**
 * Share of PERSON tokens in generated text whose word-identity features (word, prefixes, suffixes,
 * word conjunctions) are zeroed: the model then has to find names it has never seen from the gazetteer
 * and the context, as it must at serving time.
 */
const NAME_MASK = Number(process.env.NER_NAME_MASK ?? 0.5);
/** Template indices of the word-identity features (w, pre1-3, suf2-4, w|w+1, w-1|w). */
/** One gazetteer word in KNOCKOUT is unknown while training (TrainingGazetteer). */
const KNOCKOUT = Number(process.env.NER_KNOCKOUT ?? 5);
const IDENTITY_TEMPLATES = [1, 4, 5, 6, 7, 8, 9, 21, 23];
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

type Doc = NerDoc;

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
// social-media text: lowercase names, handles, hashtags, emoji, typos (TRAIN / EVAL templates and names disjoint)
const socialTrain = socialNamesTrain();
const socialEval = socialNamesEval();
for (const s of socialTrain) trainDocs.push({ text: s.text, spans: s.spans, family: 'generated/social-train' });
for (const s of socialEval) valDocs.push({ text: s.text, spans: s.spans, family: 'generated/social-eval-templates' });
log(`pii data: train docs ${trainDocs.length}, validation docs ${valDocs.length}`);

// ---------------------------------------------------------------------------------------------
// token labels and features

// the name gazetteer ships next to the model; the featurizer config pins it by sha256
const gazetteerTsv = buildGazetteerTsv();
const gazetteerFile = writeModelFile(ID, 'names.tsv', Buffer.from(gazetteerTsv, 'utf8'));
const gazetteer = new NameGazetteer(gazetteerTsv);
/**
 * While training, one word in five of the gazetteer is treated as unknown (class "-"), everywhere it
 * occurs: every training name is in the gazetteer, so without this the model would learn that a
 * lowercase word the gazetteer does not know is never a name.
 */
class TrainingGazetteer extends NameGazetteer {
  override classOf(lw: string): string {
    if (hashString(0x6a2e, lw) % KNOCKOUT === 0) return /\p{L}/u.test(lw) ? '-' : 'p';
    return super.classOf(lw);
  }
}
const trainingGazetteer = new TrainingGazetteer(gazetteerTsv);
log(`wrote ${gazetteerFile.file} (${gazetteer.size} words, ${(gazetteerFile.bytes / 1e3).toFixed(0)} kB)`);
const cfg = tokenFeaturizerConfig(1 << BITS, { file: gazetteerFile.file, sha256: gazetteerFile.sha256 });
const featurizer = new TokenFeaturizer(cfg, trainingGazetteer);
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
const maskRng = mulberry32(SEED + 1);
const PERSON = labelIndex.get('PERSON') as number;
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
  const generated = d.family.startsWith('generated/');
  for (let i = 0; i < toks.length; i++) {
    if (generated && labs[i] === PERSON && maskRng() < NAME_MASK)
      for (const k of IDENTITY_TEMPLATES) vals[i * L + k] = 0;
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
  docString: 'pii-ner: embedding-bag MLP token classifier over hashed-token-v2 features',
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

const ner = await loadOnnxTokenClassifier(entry);
const predicted: Entity[][] = [];
for (let i = 0; i < valDocs.length; i += 64)
  predicted.push(...(await ner.entitiesBatch(valDocs.slice(i, i + 64).map((d) => d.text))));
const metrics = scoreEntities(valDocs, predicted, NER_LABELS);
for (const [fam, m] of Object.entries(metrics)) log(`${fam}: ${JSON.stringify(m)}`);

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
      'entity level on held-out sources: CoNLL-2003 eng.testa, presidio synth templates with id % 5 == 0, faker, structured-identifier and social-media sentences from held-out templates; strict = exact span and label, overlap = same label and overlapping span',
    ...metrics,
    latency_ms_per_1000_chars: latencyMs,
    train_seconds: trainSeconds,
  },
  training_data_sha256: dataSha256,
  seed: SEED,
});

writeCard(
  ID,
  nerCard({
    version: VERSION,
    labels: NER_LABELS,
    cfg,
    bits: BITS,
    dim: DIM,
    lr: LR,
    epochs: EPOCHS,
    l2: L2,
    dropout: DROPOUT,
    nameMask: NAME_MASK,
    knockout: KNOCKOUT,
    seed: SEED,
    modelMb: (written.bytes / 1e6).toFixed(1),
    gazetteerEntries: gazetteer.size,
    gazetteerKb: (gazetteerFile.bytes / 1e3).toFixed(0),
    trainTokens: labels.length,
    labelCounts: NER_LABELS.map((l, c) => `${l} ${counts[c]}`).join(', '),
    trainSeconds,
    dataSha256,
    synthTrain: synthTrain.length,
    synthEval: synthEval.length,
    socialTrain: socialTrain.length,
    socialEval: socialEval.length,
    metrics,
    latencyMs,
  }),
);
log('done');
