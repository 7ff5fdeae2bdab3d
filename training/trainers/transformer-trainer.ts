/**
 * Training loop for the `transformer-encoder-v1` text classifier on TensorFlow.js (wasm backend):
 * windows the data the way the engine scores it, samples by weight, picks each positive's
 * highest-scoring window (multiple-instance), trains with Adam, checkpoints and resumes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chunkTexts } from '../../engine/chunk.ts';
import { mulberry32, shuffleInPlace, type Rng } from '../prng.ts';
import { paramShapes, type TransformerConfig, type TransformerParams } from '../transformer.ts';
import { tokenRows, type WordPieceTokenizer } from '../../inference/wordpiece.ts';
import type { Example } from './common.ts';
import {
  forwardLogits,
  fromVars,
  initParams,
  padBatch,
  predictRows,
  tf,
  toVars,
  useBackend,
  type Vars,
} from './transformer-tf.ts';

export interface TransformerTrainOptions {
  seed: number;
  steps: number;
  batchSize: number;
  /** Batches per macro-batch: items are sampled, length-sorted and cut into batches together. */
  batchesPerMacro: number;
  lr: number;
  warmupSteps: number;
  finalLrFraction: number;
  clipNorm: number;
  maxChars: number;
  /** A positive is one group of the rows of its first `posMaxWindows` windows. */
  posMaxWindows: number;
  rowOverlapTokens: number;
  familyCap: number;
  checkpointDir: string;
  checkpointEverySeconds: number;
  fresh: boolean;
  /** Identifies the run (data, tokenizer, hyper-parameters): a checkpoint of another run is ignored. */
  runKey: string;
  /** Stop (checkpointed) after this many steps of this invocation, at a macro-batch boundary; a re-run resumes. */
  stopAfter?: number;
  /** Dropout rate during training (embeddings and residual branches); 0 or absent: none. */
  dropout?: number;
  log: (m: string) => void;
}

interface Item {
  rows: number[][];
  label: number;
  family: string;
}

export interface TrainingSet {
  items: Item[];
  weights: Float64Array;
  rows: number;
  positives: number;
}

/**
 * One item per benign window (every window of a benign text is benign) and one group per positive
 * (rows of its first windows); weights: families above `familyCap` items damped by sqrt(cap/size),
 * then each class scaled to half the total (as `buildTrainingSet` does for the bag models).
 */
export function buildTokenTrainingSet(
  examples: Example[],
  tok: WordPieceTokenizer,
  cfg: TransformerConfig,
  o: Pick<TransformerTrainOptions, 'maxChars' | 'posMaxWindows' | 'rowOverlapTokens' | 'familyCap'>,
): TrainingSet {
  const items: Item[] = [];
  let rows = 0;
  for (const e of examples) {
    const windows = chunkTexts(e.text, o.maxChars);
    if (e.label === 0) {
      for (const w of windows) {
        for (const r of tokenRows(tok.encode(w), cfg.max_tokens, o.rowOverlapTokens))
          items.push({ rows: [r], label: 0, family: e.family });
      }
      continue;
    }
    const group = windows
      .slice(0, o.posMaxWindows)
      .flatMap((w) => tokenRows(tok.encode(w), cfg.max_tokens, o.rowOverlapTokens));
    if (group.length) items.push({ rows: group, label: 1, family: e.family });
  }
  const famCount = new Map<string, number>();
  for (const it of items) famCount.set(`${it.label}|${it.family}`, (famCount.get(`${it.label}|${it.family}`) ?? 0) + 1);
  const weights = new Float64Array(items.length);
  let wp = 0;
  let wn = 0;
  items.forEach((it, i) => {
    const size = famCount.get(`${it.label}|${it.family}`) as number;
    const w = size > o.familyCap ? Math.sqrt(o.familyCap / size) : 1;
    weights[i] = w;
    rows += it.rows.length;
    if (it.label === 1) wp += w;
    else wn += w;
  });
  items.forEach((it, i) => {
    weights[i] = (weights[i] as number) * (it.label === 1 ? 0.5 / wp : 0.5 / wn);
  });
  return { items, weights, rows, positives: items.filter((i) => i.label === 1).length };
}

/** Weighted sampling with replacement (cumulative weights + binary search). */
function sampler(weights: Float64Array): (rng: Rng) => number {
  const cum = new Float64Array(weights.length);
  let s = 0;
  for (let i = 0; i < weights.length; i++) cum[i] = s += weights[i] as number;
  return (rng) => {
    const x = rng() * s;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cum[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// ---------------------------------------------------------------------------------------------
// Checkpoints: state.json (step, run key, tensor index) + state.bin (float32 data, in index order)

interface CheckpointIndex {
  runKey: string;
  step: number;
  lossEma: number;
  elapsedSeconds: number;
  tensors: { name: string; shape: number[]; kind: 'param' | 'opt' }[];
}

async function saveCheckpoint(
  dir: string,
  runKey: string,
  step: number,
  lossEma: number,
  elapsedSeconds: number,
  vars: Vars,
  opt: tf.Optimizer,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const tensors: CheckpointIndex['tensors'] = [];
  const chunks: Buffer[] = [];
  for (const [name, v] of vars) {
    tensors.push({ name, shape: v.shape.slice(), kind: 'param' });
    chunks.push(Buffer.from(((await v.data()) as Float32Array).buffer));
  }
  for (const w of await opt.getWeights()) {
    tensors.push({ name: w.name, shape: w.tensor.shape.slice(), kind: 'opt' });
    chunks.push(Buffer.from(Float32Array.from(await w.tensor.data()).buffer));
  }
  const index: CheckpointIndex = { runKey, step, lossEma, elapsedSeconds, tensors };
  writeFileSync(path.join(dir, 'state.bin.tmp'), Buffer.concat(chunks));
  writeFileSync(path.join(dir, 'state.json.tmp'), JSON.stringify(index));
  renameSync(path.join(dir, 'state.bin.tmp'), path.join(dir, 'state.bin'));
  renameSync(path.join(dir, 'state.json.tmp'), path.join(dir, 'state.json'));
}

function loadCheckpoint(
  dir: string,
  runKey: string,
  log: (m: string) => void,
): { index: CheckpointIndex; data: Map<string, Float32Array> } | null {
  const jf = path.join(dir, 'state.json');
  if (!existsSync(jf)) return null;
  const index = JSON.parse(readFileSync(jf, 'utf8')) as CheckpointIndex;
  if (index.runKey !== runKey) {
    log(`checkpoint in ${dir} is from another run (data, tokenizer or settings changed): starting fresh`);
    return null;
  }
  const bin = readFileSync(path.join(dir, 'state.bin'));
  const data = new Map<string, Float32Array>();
  let off = bin.byteOffset;
  for (const t of index.tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    data.set(`${t.kind}:${t.name}`, new Float32Array(bin.buffer.slice(off, off + n * 4)));
    off += n * 4;
  }
  return { index, data };
}

/** Stable key of a run from its parts (checkpoint compatibility). */
export function runKeyOf(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

// ---------------------------------------------------------------------------------------------

function lrAt(o: TransformerTrainOptions, step: number): number {
  if (step < o.warmupSteps) return (o.lr * (step + 1)) / o.warmupSteps;
  const p = Math.min(1, (step - o.warmupSteps) / Math.max(1, o.steps - o.warmupSteps));
  return o.lr * (o.finalLrFraction + (1 - o.finalLrFraction) * 0.5 * (1 + Math.cos(Math.PI * p)));
}

function fmtDuration(s: number): string {
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`;
}

/** Picks, per positive group with several rows, the row the current model scores highest. */
async function pickRows(c: TransformerConfig, vars: Vars, items: Item[]): Promise<number[][]> {
  const chosen: number[][] = items.map((it) => it.rows[0] as number[]);
  const cand: { item: number; row: number[] }[] = [];
  items.forEach((it, i) => {
    if (it.label === 1 && it.rows.length > 1) for (const r of it.rows) cand.push({ item: i, row: r });
  });
  cand.sort((a, b) => a.row.length - b.row.length);
  const best = new Float64Array(items.length).fill(-1);
  for (let s = 0; s < cand.length; s += 64) {
    const part = cand.slice(s, s + 64);
    const scores = await predictRows(
      c,
      vars,
      part.map((p) => p.row),
    );
    part.forEach((p, k) => {
      if ((scores[k] as number) > (best[p.item] as number)) {
        best[p.item] = scores[k] as number;
        chosen[p.item] = p.row;
      }
    });
  }
  return chosen;
}

export interface TrainResult {
  params: TransformerParams;
  trainSeconds: number;
  finalLoss: number;
}

export async function trainTransformer(
  c: TransformerConfig,
  set: TrainingSet,
  o: TransformerTrainOptions,
): Promise<TrainResult> {
  await useBackend('wasm');
  const { log } = o;
  if (o.fresh) rmSync(o.checkpointDir, { recursive: true, force: true });
  const ckpt = loadCheckpoint(o.checkpointDir, o.runKey, log);
  const params = initParams(c, o.seed);
  if (ckpt) {
    for (const [name] of paramShapes(c)) {
      const d = ckpt.data.get(`param:${name}`);
      if (!d) throw new Error(`checkpoint lacks ${name}`);
      (params.get(name) as { data: Float32Array }).data = d;
    }
  }
  const vars = toVars(params);
  const opt = tf.train.adam(o.lr, 0.9, 0.98, 1e-8);
  let step = 0;
  let lossEma = 0.693;
  let elapsedBefore = 0;
  if (ckpt) {
    // create the slots (one zero-lr step), then overwrite them with the saved moments
    const idx = ckpt.index.tensors.filter((t) => t.kind === 'opt');
    const zero = tf.tidy(() => Object.fromEntries([...vars].map(([n, v]) => [n, tf.zerosLike(v)])));
    opt.applyGradients(zero as Record<string, tf.Variable>);
    tf.dispose(Object.values(zero));
    const weights = idx.map((t) => ({
      name: t.name,
      tensor: tf.tensor(ckpt.data.get(`opt:${t.name}`) as Float32Array, t.shape),
    }));
    await opt.setWeights(weights);
    tf.dispose(weights.map((w) => w.tensor));
    step = ckpt.index.step;
    lossEma = ckpt.index.lossEma;
    elapsedBefore = ckpt.index.elapsedSeconds;
    log(`resumed from ${o.checkpointDir} at step ${step}/${o.steps}`);
  }
  const draw = sampler(set.weights);
  const macroSize = o.batchSize * o.batchesPerMacro;
  const tty = process.stderr.isTTY === true;
  const t0 = Date.now();
  const stepAtStart = step;
  let lastCkpt = Date.now();
  let lastLine = 0;
  const progress = (force = false): void => {
    const now = Date.now();
    if (!force && !tty && now - lastLine < 30_000) return;
    lastLine = now;
    const rate = (now - t0) / 1000 / Math.max(1, step - stepAtStart);
    const eta = rate * (o.steps - step);
    const line = `[train] step ${step}/${o.steps} (${((100 * step) / o.steps).toFixed(1)}%) loss ${lossEma.toFixed(4)} lr ${lrAt(o, Math.max(0, step - 1)).toExponential(2)} ${rate.toFixed(2)} s/step ETA ${fmtDuration(eta)}`;
    process.stderr.write(tty ? `\r${line}   ` : `${line}\n`);
  };
  // stop only at a macro-batch boundary: a macro-batch's rows are picked with the model of its start
  const stopAt =
    o.stopAfter === undefined
      ? o.steps
      : Math.min(o.steps, Math.ceil((step + o.stopAfter) / o.batchesPerMacro) * o.batchesPerMacro);
  while (step < stopAt) {
    // the macro-batch's items depend only on (seed, macro index): a resumed run sees the same stream
    const macro = Math.floor(step / o.batchesPerMacro);
    const rng = mulberry32((o.seed ^ Math.imul(macro + 1, 0x9e3779b1)) >>> 0);
    const items = Array.from({ length: macroSize }, () => set.items[draw(rng)] as Item);
    const rows = await pickRows(c, vars, items);
    const order = rows.map((r, i) => ({ r, y: (items[i] as Item).label })).sort((a, b) => a.r.length - b.r.length);
    const batches: { r: number[]; y: number }[][] = [];
    for (let s = 0; s < order.length; s += o.batchSize) batches.push(order.slice(s, s + o.batchSize));
    shuffleInPlace(batches, rng);
    for (const b of batches.slice(step % o.batchesPerMacro)) {
      if (step >= stopAt) break;
      (opt as unknown as { learningRate: number }).learningRate = lrAt(o, step);
      const ids = padBatch(b.map((x) => x.r));
      const y = tf.tensor1d(
        b.map((x) => x.y),
        'float32',
      );
      const { value, grads } = tf.variableGrads(
        () =>
          tf.losses.sigmoidCrossEntropy(
            y,
            forwardLogits(
              c,
              vars,
              ids,
              o.dropout ? { rate: o.dropout, seed: (o.seed + step) % 100_000_000 } : undefined,
            ),
          ) as tf.Scalar,
      );
      const clipped = tf.tidy(() => {
        const gs = Object.values(grads);
        const norm = tf.sqrt(tf.addN(gs.map((g) => tf.sum(tf.square(g)))));
        const scale = tf.minimum(1, tf.div(o.clipNorm, tf.add(norm, 1e-6)));
        return Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, tf.mul(g, scale)]));
      });
      opt.applyGradients(clipped as Record<string, tf.Variable>);
      const loss = (await value.data())[0] as number;
      tf.dispose([ids, y, value, ...Object.values(grads), ...Object.values(clipped)]);
      lossEma = 0.98 * lossEma + 0.02 * loss;
      step++;
      progress();
      if (Date.now() - lastCkpt > o.checkpointEverySeconds * 1000 && step % o.batchesPerMacro === 0) {
        await saveCheckpoint(
          o.checkpointDir,
          o.runKey,
          step,
          lossEma,
          elapsedBefore + (Date.now() - t0) / 1000,
          vars,
          opt,
        );
        lastCkpt = Date.now();
      }
    }
  }
  progress(true);
  if (tty) process.stderr.write('\n');
  await saveCheckpoint(o.checkpointDir, o.runKey, step, lossEma, elapsedBefore + (Date.now() - t0) / 1000, vars, opt);
  const trained = await fromVars(vars);
  for (const v of vars.values()) v.dispose();
  return { params: trained, trainSeconds: Math.round(elapsedBefore + (Date.now() - t0) / 1000), finalLoss: lossEma };
}
