/** Training + export + evaluation of an embedding-bag MLP text classifier (pi-accurate, toxicity). */
import { TextFeaturizer, textFeaturizerConfig, type TextFeaturizerConfig } from '../../inference/text-features.ts';
import type { HardNegative } from '../data/hard-negatives.ts';
import { exportBagMlpOnnx } from '../onnx-io.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import type { TextClassifier } from '../../inference/classifier.ts';
import { loadOnnxClassifier } from '../../inference/text-classifier.ts';
import {
  buildTrainingSet,
  chunkedScores,
  evaluateBinary,
  logReport,
  upsertManifestEntry,
  writeModelFile,
  type EvalReport,
  type Example,
} from './common.ts';
import { trainBagMlp, type TrainOptions } from './trainers.ts';

export interface BagClassifierSpec {
  id: string;
  version: string;
  seed: number;
  bits: number;
  dim: number;
  maxFeatures: number;
  maxChars: number;
  posCapChars: number;
  familyCap: number;
  labels: [string, string];
  train: Example[];
  val: Example[];
  hardEval: HardNegative[];
  trainOptions: Omit<TrainOptions, 'seed' | 'log'> & { featureDropout?: number; embInitStd?: number };
  dataSha256: string;
  heldoutFamilies: readonly string[];
  log: (m: string) => void;
}

export interface BagClassifierResult {
  entry: ModelEntry;
  cfg: TextFeaturizerConfig;
  report: EvalReport;
  bytes: number;
  trainRows: number;
  latency: { single_1000_chars_ms: number; batch16_1000_chars_ms: number };
  classifier: TextClassifier;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

export async function trainBagClassifier(spec: BagClassifierSpec, t0: number): Promise<BagClassifierResult> {
  const { log } = spec;
  const cfg = textFeaturizerConfig(1 << spec.bits, spec.maxFeatures);
  const featurizer = new TextFeaturizer(cfg);
  const ts = buildTrainingSet(spec.train, featurizer, spec.maxChars, spec.posCapChars, spec.familyCap, log);
  const params = trainBagMlp(
    ts.csr,
    ts.labels,
    ts.weights,
    { buckets: cfg.buckets, dim: spec.dim, classes: 1 },
    { ...spec.trainOptions, seed: spec.seed, log },
    ts.groups,
  );
  const onnxBytes = exportBagMlpOnnx(params, {
    modelId: spec.id,
    version: spec.version,
    docString: `${spec.id}: embedding-bag MLP over hashed-text-v1 features`,
  });
  const written = writeModelFile(spec.id, 'model.onnx', onnxBytes);
  log(`wrote ${written.file} (${(written.bytes / 1e6).toFixed(1)} MB)`);
  const entry: ModelEntry = {
    id: spec.id,
    version: spec.version,
    task: 'text-classification',
    runtime: 'onnx',
    file: written.file,
    sha256: written.sha256,
    featurizer: {
      ...cfg,
      embedding_dim: spec.dim,
      hidden: 'relu(bag + b0)',
      output: 'scores [N] = sigmoid(hidden @ W + b)',
    } as unknown as Record<string, unknown>,
    labels: spec.labels,
    max_chars: spec.maxChars,
  };
  const classifier = await loadOnnxClassifier(entry);
  const valScores = await chunkedScores(
    spec.val.map((e) => e.text),
    spec.maxChars,
    (b) => classifier.scoreBatch(b),
  );
  const hardScores = await chunkedScores(
    spec.hardEval.map((h) => h.text),
    spec.maxChars,
    (b) => classifier.scoreBatch(b),
  );
  const report = evaluateBinary(spec.val, valScores, spec.hardEval, hardScores);
  logReport(report, log);

  // latency: one 1,000-char text, and a batch of 16
  const pool = spec.val.map((e) => e.text).join(' ');
  const texts = Array.from({ length: 64 }, (_, i) => Buffer.from(pool.slice(i * 1000, (i + 1) * 1000)).toString());
  for (let i = 0; i < 20; i++) await classifier.scoreBatch([texts[i % texts.length] as string]);
  const single: number[] = [];
  for (let i = 0; i < 100; i++) {
    const a = process.hrtime.bigint();
    await classifier.scoreBatch([texts[i % texts.length] as string]);
    single.push(Number(process.hrtime.bigint() - a) / 1e6);
  }
  const batch: number[] = [];
  for (let i = 0; i < 30; i++) {
    const a = process.hrtime.bigint();
    await classifier.scoreBatch(texts.slice((i * 16) % 48, ((i * 16) % 48) + 16));
    batch.push(Number(process.hrtime.bigint() - a) / 1e6);
  }
  const latency = {
    single_1000_chars_ms: Math.round(median(single) * 1000) / 1000,
    batch16_1000_chars_ms: Math.round(median(batch) * 1000) / 1000,
  };
  log(`latency (median) ${JSON.stringify(latency)}`);

  const trainSeconds = Math.round((Date.now() - t0) / 1000);
  upsertManifestEntry({
    ...entry,
    thresholds: report.thresholds,
    metrics: {
      validation: `held-out source families + generated hard negatives from held-out templates; scores are max over ${spec.maxChars}-char chunks`,
      heldout_families: spec.heldoutFamilies,
      overall: report.overall,
      overall_at_0_5: report.overall_at_0_5,
      sources_only: report.sources_only,
      hard_negatives: report.hard_negatives,
      per_source: report.per_source,
      latency_ms: latency,
      train_seconds: trainSeconds,
    },
    training_data_sha256: spec.dataSha256,
    seed: spec.seed,
  });
  return { entry, cfg, report, bytes: written.bytes, trainRows: ts.labels.length, latency, classifier };
}
