/**
 * Frozen sentence-encoder features for the semantic heads (pi-semantic, toxicity-semantic): each text's
 * 128-token windows (`pooledWindows`: the first and last `maxWindows / 2` of longer text) embedded by
 * USE-lite, pooled to mean ‖ per-dimension max ([n, 2 · 512], row-major). Cached in `cacheDir` per chunk
 * of texts by their sha256, so a rerun of a trainer embeds nothing it embedded before. `writeSemanticHead`
 * writes a fitted head as a model artifact.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serializeHead, type LogisticHead } from '../../inference/logistic-head.ts';
import { pooledWindows, SEMANTIC_FEATURIZER, type SemanticFeaturizer } from '../../inference/semantic-classifier.ts';
import type { SentenceEncoder } from '../../inference/sentence-encoder.ts';
import { USE_LITE_VERSION } from '../../inference/use-lite-weights.ts';
import { REPO_ROOT, sha256Hex } from '../data/datasets.ts';
import { upsertManifestEntry, writeModelFile } from './common.ts';

export const EMBEDDING_DIM = 512;

export interface PoolingOptions {
  windowTokens: number;
  maxWindows: number;
  cacheDir: string;
  log: (m: string) => void;
}

/** Texts per cache file: editing generated rows at the end of a set re-embeds only its last chunks. */
const CHUNK = 2048;

/** [n, 2·512]: mean ‖ max over each text's windows. */
export async function pooledEmbeddings(
  name: string,
  texts: readonly string[],
  enc: () => Promise<SentenceEncoder>,
  o: PoolingOptions,
): Promise<Float32Array> {
  const out = new Float32Array(texts.length * 2 * EMBEDDING_DIM);
  let cached = 0;
  const t0 = Date.now();
  for (let start = 0; start < texts.length; start += CHUNK) {
    const part = texts.slice(start, start + CHUNK);
    const key = sha256Hex(`${o.maxWindows}\0${part.join('\0')}`).slice(0, 16);
    const file = path.join(o.cacheDir, `${name}-${key}.f32`);
    if (existsSync(file)) {
      const b = readFileSync(file);
      out.set(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4), start * 2 * EMBEDDING_DIM);
      cached += part.length;
      continue;
    }
    const x = await embed(part, await enc(), o);
    mkdirSync(o.cacheDir, { recursive: true });
    writeFileSync(file, Buffer.from(x.buffer));
    out.set(x, start * 2 * EMBEDDING_DIM);
  }
  o.log(
    `${name}: ${texts.length} texts (${cached} from ${path.relative(REPO_ROOT, o.cacheDir)}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  return out;
}

async function embed(texts: readonly string[], e: SentenceEncoder, o: PoolingOptions): Promise<Float32Array> {
  const DIM = EMBEDDING_DIM;
  const perText = texts.map((t) => pooledWindows(e.tokenize(t), o.windowTokens, o.maxWindows));
  const flat = perText.flat();
  // windows sorted by length: a batch pads to its longest window
  const order = flat.map((_, i) => i).sort((a, b) => (flat[a] as number[]).length - (flat[b] as number[]).length);
  const sorted = await e.embedIds(order.map((i) => flat[i] as number[]));
  const emb = new Array<Float32Array>(flat.length);
  order.forEach((i, k) => (emb[i] = sorted[k] as Float32Array));
  const out = new Float32Array(texts.length * 2 * DIM);
  let k = 0;
  perText.forEach((ws, i) => {
    const base = i * 2 * DIM;
    out.fill(-Infinity, base + DIM, base + 2 * DIM);
    for (let w = 0; w < ws.length; w++) {
      const v = emb[k++] as Float32Array;
      for (let j = 0; j < DIM; j++) {
        out[base + j] = (out[base + j] as number) + (v[j] as number) / ws.length;
        out[base + DIM + j] = Math.max(out[base + DIM + j] as number, v[j] as number);
      }
    }
  });
  return out;
}

export type PoolView = 'max' | 'meanmax';

/** The `view` columns of rows `rows` (default all) of pooled features `x` [n, 2·512]. */
export function selectView(x: Float32Array, n: number, view: PoolView, rows?: readonly number[]): Float32Array {
  const DIM = EMBEDDING_DIM;
  const idx = rows ?? Array.from({ length: n }, (_, i) => i);
  const d = view === 'max' ? DIM : 2 * DIM;
  const out = new Float32Array(idx.length * d);
  idx.forEach((i, k) => out.set(x.subarray(i * 2 * DIM + (view === 'max' ? DIM : 0), (i + 1) * 2 * DIM), k * d));
  return out;
}

/**
 * The windows every sentence-encoder head is trained and served with (4,000 characters, at most 8 token
 * windows of 128): one shape for all, so a message scored by two heads on one model thread (prompt
 * injection and toxicity) is embedded once, through the thread's window LRU.
 */
export const SEMANTIC_WINDOWS = { windowTokens: 128, maxWindows: 8, maxChars: 4000 } as const;

export interface SemanticHeadArtifact {
  id: string;
  version: string;
  head: LogisticHead;
  labels: [string, string];
  metrics: Record<string, unknown>;
  /** the rows the head was fitted on (their sha256 goes into the entry) */
  train: readonly { label: number; text: string }[];
  seed: number;
}

/**
 * Writes a semantic head (pi-semantic, toxicity-semantic): `head.json` and its manifest entry, featurizer
 * `use-lite-head-v1` on the installed encoder. No thresholds: a semantic head is served only as an input
 * of a stack (the owning entry's `combine`). Returns the encoder id the head was trained on.
 */
export function writeSemanticHead(a: SemanticHeadArtifact): { encoder: string; file: string } {
  const encoder = `use-lite@${USE_LITE_VERSION}`;
  const written = writeModelFile(a.id, 'head.json', new TextEncoder().encode(serializeHead(a.head) + '\n'));
  const featurizer: SemanticFeaturizer = {
    type: SEMANTIC_FEATURIZER,
    encoder,
    window_tokens: SEMANTIC_WINDOWS.windowTokens,
    max_windows: SEMANTIC_WINDOWS.maxWindows,
  };
  upsertManifestEntry({
    id: a.id,
    version: a.version,
    task: 'text-classification',
    runtime: 'onnx',
    file: written.file,
    sha256: written.sha256,
    featurizer: {
      ...featurizer,
      pooling: 'per-dimension max over the token windows, then a logistic head on the standardised 512-d vector',
    },
    labels: a.labels,
    max_chars: SEMANTIC_WINDOWS.maxChars,
    metrics: a.metrics,
    training_data_sha256: sha256Hex(a.train.map((r) => `${r.label}\0${r.text}`).join('\n')),
    seed: a.seed,
  });
  return { encoder, file: written.file };
}
