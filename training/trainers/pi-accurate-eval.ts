/**
 * How `pi-accurate`'s exported candidates (float32, int8) are measured and chosen between: recall at
 * fixed false-positive rates, latency through the serving path, and whether int8 may ship.
 */
import { chunkTexts } from '../../engine/chunk.ts';
import type { TextClassifier } from '../../inference/classifier.ts';
import { WordPieceTokenizer, type WordPieceConfig } from '../../inference/wordpiece.ts';
import { binaryMetrics, thresholdForFpr } from '../metrics.ts';
import type { EvalReport, Example } from './common.ts';

export interface Variant {
  name: 'float32' | 'int8';
  bytes: number;
  report: EvalReport;
  valScores: number[];
  hardScores: number[];
  recallAtFpr: Record<string, number>;
  latency: Latency;
}
export interface Latency {
  p50_ms: number;
  p99_ms: number;
  windows: number;
  tokenize_ms_per_1000_chars: number;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Recall at FPR 0.01, 0.02 and 0.05 (the negatives: held-out benign rows and the hard negatives). */
export function recallAtFpr(val: Example[], valScores: number[], hardScores: number[]): Record<string, number> {
  const neg = [...valScores.filter((_, i) => (val[i] as Example).label === 0), ...hardScores];
  const pos = valScores.filter((_, i) => (val[i] as Example).label === 1);
  const out: Record<string, number> = {};
  for (const f of [0.01, 0.02, 0.05]) {
    const t = thresholdForFpr(neg, f);
    out[`fpr_${f}`] = r4(pos.filter((s) => s > t).length / pos.length);
  }
  return out;
}

/**
 * 1,000-character texts (cut from `heldOut` joined) scored the way the engine does (its windows of
 * `maxChars`), one `scoreBatch` each, the classifiers interleaved call by call so that machine noise
 * hits both alike; tokenization timed apart with a fresh tokenizer (cold cache).
 */
export async function latencies(
  clfs: TextClassifier[],
  heldOut: string[],
  maxChars: number,
  tokCfg: WordPieceConfig,
): Promise<Latency[]> {
  const pool = heldOut.join(' ');
  const texts = Array.from({ length: 64 }, (_, i) => pool.slice(i * 1000, (i + 1) * 1000));
  const windows = texts.map((t) => chunkTexts(t, maxChars));
  for (let i = 0; i < 100; i++) for (const c of clfs) await c.scoreBatch(windows[i % 64] as string[]);
  const ms = clfs.map((): number[] => []);
  for (let i = 0; i < 1500; i++) {
    for (let k = 0; k < clfs.length; k++) {
      const j = (i + k) % clfs.length; // alternate which goes first
      const a = process.hrtime.bigint();
      await (clfs[j] as TextClassifier).scoreBatch(windows[i % 64] as string[]);
      (ms[j] as number[]).push(Number(process.hrtime.bigint() - a) / 1e6);
    }
  }
  const fresh = new WordPieceTokenizer(tokCfg);
  const a = process.hrtime.bigint();
  for (const t of texts) fresh.encode(t);
  const tokMs = Number(process.hrtime.bigint() - a) / 1e6 / texts.length;
  return ms.map((m) => {
    m.sort((x, y) => x - y);
    return {
      p50_ms: r4(m[Math.floor(m.length * 0.5)] as number),
      p99_ms: r4(m[Math.floor(m.length * 0.99)] as number),
      windows: r4(windows.reduce((s2, w) => s2 + w.length, 0) / windows.length),
      tokenize_ms_per_1000_chars: r4(tokMs),
    };
  });
}

export interface AtThresholds {
  recall_flag: number;
  fpr_flag: number;
  recall_warn: number;
  fpr_warn: number;
}

/** A variant's scores at thresholds `t` (e.g. int8 at the float32 ones: how much a deployment's decisions change). */
export function atThresholds(v: Variant, t: EvalReport['thresholds'], labels: number[]): AtThresholds {
  const scores = [...v.valScores, ...v.hardScores];
  const at = (th: number) => binaryMetrics(scores, labels, th);
  return {
    recall_flag: at(t.flag_above).recall,
    fpr_flag: at(t.flag_above).fpr,
    recall_warn: at(t.warn_above).recall,
    fpr_warn: at(t.warn_above).fpr,
  };
}

/**
 * int8 ships when it keeps the metrics (AUC within 0.005; recall and FPR at the float32 flag threshold
 * within 0.01) and is at least 5 % faster, unless `force` ('1' / '0', from PI_ACC_INT8) says otherwise.
 * `decision` says why, for the log, the manifest and the card.
 */
export function chooseInt8(
  f32v: Variant,
  i8v: Variant,
  labels: number[],
  force: string | undefined,
): { shipInt8: boolean; decision: string; i8AtF32: AtThresholds } {
  const i8AtF32 = atThresholds(i8v, f32v.report.thresholds, labels);
  const f32AtF32 = atThresholds(f32v, f32v.report.thresholds, labels);
  const int8Holds =
    (f32v.report.overall.roc_auc ?? 0) - (i8v.report.overall.roc_auc ?? 0) <= 0.005 &&
    Math.abs(i8AtF32.recall_flag - f32AtF32.recall_flag) <= 0.01 &&
    Math.abs(i8AtF32.fpr_flag - f32AtF32.fpr_flag) <= 0.01;
  // int8 under ORT's `all` level no longer matches the float32 reference exactly: worth it only when clearly faster
  const int8Faster = i8v.latency.p50_ms <= 0.95 * f32v.latency.p50_ms;
  const shipInt8 = force !== undefined ? force === '1' : int8Holds && int8Faster;
  const decision = `int8 ${int8Holds ? 'keeps' : 'does not keep'} the metrics (AUC ${i8v.report.overall.roc_auc} vs ${f32v.report.overall.roc_auc}; at the float32 flag threshold recall ${i8AtF32.recall_flag} vs ${f32AtF32.recall_flag}, FPR ${i8AtF32.fpr_flag} vs ${f32AtF32.fpr_flag}) and is ${int8Faster ? 'faster' : 'not faster'} (p50 ${i8v.latency.p50_ms} vs ${f32v.latency.p50_ms} ms): ${shipInt8 ? 'int8' : 'float32'} ships${force !== undefined ? ' (forced by PI_ACC_INT8)' : ''}`;
  return { shipInt8, decision, i8AtF32 };
}
