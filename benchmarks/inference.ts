/**
 * In-process latency of the serving path (one core): `node --import tsx benchmarks/inference.ts`.
 * Uses generated text (no datasets needed). Reports min, median and p99 over repeated runs. ONNX text
 * classifiers score a 1,000-character text the way the engine does: its windows of the model's
 * `max_chars` (engine/chunk.ts: chunkTexts) in one `scoreBatch`. Then the model-thread cost of pii-ner
 * and toxicity per 1,000 characters split by component (inference-split.ts); `--split` runs only that.
 */
import { chunkTexts } from '../engine/chunk.ts';
import { injectionHardNegativesEval } from '../training/data/hard-negatives.ts';
import { piiSynthEval } from '../training/data/pii-synth.ts';
import { syntheticInjections } from '../training/data/synthetic-injections.ts';
import { TextFeaturizer, type TextFeaturizerConfig } from '../inference/text-features.ts';
import { loadLinearModel } from '../inference/linear-model.ts';
import { modelEntry } from '../inference/manifest.ts';
import { loadOnnxClassifier } from '../inference/text-classifier.ts';
import { loadOnnxTokenClassifier } from '../inference/token-classifier.ts';
import { printSplit } from './inference-split.ts';

const pool = [
  ...injectionHardNegativesEval(400, 1).map((h) => h.text),
  ...syntheticInjections(200, 2),
  ...piiSynthEval(300, 3).map((s) => s.text),
];
/** Flat strings of exactly `size` characters built from the pool. */
function texts(count: number, size: number): string[] {
  const all = pool.join(' ');
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const start = (i * 7919) % Math.max(1, all.length - size);
    out.push(Buffer.from(all.slice(start, start + size)).toString());
  }
  return out;
}

function stats(samples: number[]): { min: number; median: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return {
    min: s[0] as number,
    median: s[Math.floor(s.length / 2)] as number,
    p99: s[Math.floor(s.length * 0.99)] as number,
  };
}

async function timeIt(
  fn: () => unknown | Promise<unknown>,
  reps: number,
  warm = 20,
): Promise<{ min: number; median: number; p99: number }> {
  for (let i = 0; i < warm; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return stats(samples);
}

const fmt = (x: { min: number; median: number }, unit: 'us' | 'ms', div = 1): string =>
  unit === 'us'
    ? `min ${((x.min * 1000) / div).toFixed(1)} µs, median ${((x.median * 1000) / div).toFixed(1)} µs`
    : `min ${(x.min / div).toFixed(3)} ms, median ${(x.median / div).toFixed(3)} ms`;

if (process.argv.includes('--split')) {
  await printSplit(texts(256, 1000));
  process.exit(0);
}

const t2000 = texts(200, 2000);
const t1000 = texts(64, 1000);

const fast = loadLinearModel(modelEntry('pi-fast'));
const feat = new TextFeaturizer(modelEntry('pi-fast').featurizer as unknown as TextFeaturizerConfig);
console.log(
  `featurize 2,000 chars:      ${fmt(await timeIt(() => t2000.forEach((t) => feat.hashes(t)), 50), 'us', t2000.length)}`,
);
console.log(
  `pi-fast score 2,000 chars:  ${fmt(await timeIt(() => t2000.forEach((t) => fast.score(t)), 50), 'us', t2000.length)}`,
);

for (const id of ['pi-accurate', 'toxicity']) {
  const clf = await loadOnnxClassifier(modelEntry(id));
  const max = clf.entry.max_chars;
  const windows = t1000.map((t) => chunkTexts(t, max));
  let k = 0;
  const single = await timeIt(() => clf.scoreBatch(windows[k++ % windows.length] as string[]), 500);
  let b = 0;
  const batch = await timeIt(() => {
    const start = (b++ % 4) * 16;
    return clf.scoreBatch(windows.slice(start, start + 16).flat());
  }, 60);
  console.log(
    `${id.padEnd(11)} 1 x 1,000 chars (${(windows[0] as string[]).length} windows of ${max}): ${fmt(single, 'ms')}, p99 ${single.p99.toFixed(3)} ms; batch 16 x 1,000 chars: ${fmt(batch, 'ms')}`,
  );
}

const ner = await loadOnnxTokenClassifier(modelEntry('pii-ner'));
let j = 0;
console.log(
  `pii-ner 1,000 chars:        ${fmt(await timeIt(() => ner.entitiesBatch([t1000[j++ % t1000.length] as string]), 200), 'ms')}`,
);
const nb = await timeIt(() => ner.entitiesBatch(t1000.slice(0, 16)), 40);
console.log(`pii-ner 16 x 1,000 chars:   ${fmt(nb, 'ms')}`);
console.log(`RSS with every model loaded: ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
await printSplit(texts(256, 1000));
