/**
 * Frozen sentence-encoder features for the semantic heads (pi-semantic, toxicity-semantic): each text's
 * 128-token windows (`pooledWindows`: the first and last `maxWindows / 2` of longer text) embedded by
 * USE-lite, pooled to mean ‖ per-dimension max ([n, 2 · 512], row-major). Cached in `cacheDir` per chunk
 * of texts by their sha256, so a rerun of a trainer embeds nothing it embedded before.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pooledWindows } from '../../inference/semantic-classifier.ts';
import type { SentenceEncoder } from '../../inference/sentence-encoder.ts';
import { REPO_ROOT, sha256Hex } from '../data/datasets.ts';

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
