/**
 * In-process detector latency: p50/p99 per detector (prompt injection per tier: fast, accurate, auto;
 * toxicity: fast = lexical only, accurate = lexical + sentence encoder, and a document) at
 * 100, 1,000 and 10,000 characters, plus each model alone on this thread (pi-accurate, pi-semantic — the
 * sentence encoder and its head —, toxicity, pi-suffix, pii-ner). Run: `npm run bench:detectors`.
 * Model detectors are measured twice: through the worker pool (thread hop + FIFO + batching, as a
 * scan sees it) and directly on this thread (the model alone).
 */
import { createMetrics } from '../lib/metrics.ts';
import { chunkTexts } from '../engine/chunk.ts';
import { normalize } from '../engine/normalize.ts';
import { loadCharLm } from '../inference/char-lm.ts';
import { modelEntry } from '../inference/manifest.ts';
import { setWindowCacheSize } from '../inference/semantic-classifier.ts';
import { loadOnnxClassifier } from '../inference/text-classifier.ts';
import { loadOnnxTokenClassifier } from '../inference/token-classifier.ts';
import { createLogger } from '../lib/logger.ts';
import { startScanning } from '../server/scanning.ts';
import { mulberry32, shuffleInPlace } from '../training/prng.ts';
import { textOf } from './fixtures.ts';

const SIZES = [100, 1_000, 10_000];
const json = process.argv.includes('--json');

function quantiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: q(0.5), p99: q(0.99) };
}

async function time(fn: () => unknown, budgetMs: number, minRuns = 30): Promise<number[]> {
  for (let i = 0; i < 10; i++) await fn();
  const out: number[] = [];
  const end = performance.now() + budgetMs;
  while (out.length < minRuns || performance.now() < end) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
    if (out.length >= 20_000) break;
  }
  return out;
}

const rows: { what: string; chars: number; p50_ms: number; p99_ms: number; runs: number }[] = [];
const record = (what: string, chars: number, samples: number[]) => {
  const { p50, p99 } = quantiles(samples);
  rows.push({
    what,
    chars,
    p50_ms: Math.round(p50 * 1000) / 1000,
    p99_ms: Math.round(p99 * 1000) / 1000,
    runs: samples.length,
  });
  if (!json)
    process.stdout.write(
      `${what.padEnd(40)} ${String(chars).padStart(6)}  p50 ${p50.toFixed(3).padStart(8)} ms  p99 ${p99.toFixed(3).padStart(8)} ms  (${samples.length} runs)\n`,
    );
};

const scanning = await startScanning(
  // no window-embedding cache: the same text runs again and again here, which a cache would answer from memory
  {
    WORKER_THREADS: 1,
    POOL_QUEUE_MAX: 1024,
    POOL_MAX_BATCH: 32,
    POOL_SLICE_MS: 5,
    MODELS_DIR: undefined,
    SEMANTIC_WINDOW_CACHE: 0,
  },
  createMetrics(false),
  createLogger('warn'),
);
const { engine } = scanning;
const cached = await startScanning(
  { WORKER_THREADS: 1, POOL_QUEUE_MAX: 1024, POOL_MAX_BATCH: 32, POOL_SLICE_MS: 5, MODELS_DIR: undefined },
  createMetrics(false),
  createLogger('warn'),
);
setWindowCacheSize(0);
const direct = {
  'pi-accurate': await loadOnnxClassifier(modelEntry('pi-accurate')),
  'pi-semantic': await loadOnnxClassifier(modelEntry('pi-semantic')),
  toxicity: await loadOnnxClassifier(modelEntry('toxicity')),
  'pii-ner': await loadOnnxTokenClassifier(modelEntry('pii-ner')),
  'pi-suffix': loadCharLm(modelEntry('pi-suffix')),
};

for (const chars of SIZES) {
  const raw = textOf(chars, 'mixed');
  record('normalize', chars, await time(() => normalize(raw), 300));
  const text = normalize(raw);
  for (const d of engine.registry.detectors) {
    const tiers =
      d.name === 'prompt_injection'
        ? (['fast', 'accurate', 'auto'] as const)
        : d.name === 'toxicity'
          ? (['fast', 'accurate'] as const)
          : (['accurate'] as const);
    for (const tier of tiers) {
      const input = { text, surface: 'user_message' as const, tier, deadlineAt: Date.now() + 3_600_000 };
      record(
        `${d.name}${tiers.length > 1 ? `/${tier}` : ''} (scan path)`,
        chars,
        await time(() => d.detect(input), 400),
      );
    }
  }
  // The cascade and the reduced stack: auto on benign text (decided without the encoder when the cheap
  // models are sure), accurate on a document (the stack without pi-semantic).
  const pi = engine.registry.get('prompt_injection')!;
  const benign = normalize(textOf(chars, 'benign'));
  const far = Date.now() + 3_600_000;
  for (const [what, input] of [
    ['prompt_injection/auto, benign text', { text: benign, surface: 'user_message', tier: 'auto', deadlineAt: far }],
    ['prompt_injection/accurate, document', { text, surface: 'document', tier: 'accurate', deadlineAt: far }],
  ] as const)
    record(what, chars, await time(() => pi.detect(input), 400));
  // toxicity off conversation surfaces: the reduced (lexical) stack, no encoder
  const tox = engine.registry.get('toxicity')!;
  record(
    'toxicity/accurate, document',
    chars,
    await time(() => tox.detect({ text, surface: 'document', tier: 'accurate', deadlineAt: far }), 400),
  );
  // The same 2,000-char windows the detectors send, in one batch.
  const windows = chunkTexts(raw, 2000);
  record('pi-accurate onnx (this thread)', chars, await time(() => direct['pi-accurate'].scoreBatch(windows), 300));
  // pi-semantic reads windows of its own max_chars (4,000): about 8 encoder windows of 128 tokens each
  const semanticWindows = chunkTexts(raw, modelEntry('pi-semantic').max_chars);
  record(
    'pi-semantic encoder+head (this thread)',
    chars,
    await time(() => direct['pi-semantic'].scoreBatch(semanticWindows), 300, 10),
  );
  record('toxicity onnx (this thread)', chars, await time(() => direct.toxicity.scoreBatch(windows), 300));
  record('pi-suffix char LM (this thread)', chars, await time(() => direct['pi-suffix'].score(text.text), 300));
  record('pii-ner onnx (this thread)', chars, await time(() => direct['pii-ner'].entitiesBatch([raw]), 300));
  record(
    'whole scan, tier=fast',
    chars,
    await time(
      () => engine.scan({ surface: 'user_message', text: raw, tier: 'fast' }, { deadlineAt: Date.now() + 3_600_000 }),
      400,
    ),
  );
  record(
    'whole scan, tier=accurate',
    chars,
    await time(
      () =>
        engine.scan({ surface: 'user_message', text: raw, tier: 'accurate' }, { deadlineAt: Date.now() + 3_600_000 }),
      400,
    ),
  );
  // The window cache as deployed (SEMANTIC_WINDOW_CACHE 256): a new text each run (the fixture's words in a
  // seeded random order, so no window repeats across or within runs), so pi-semantic embeds it and
  // toxicity-semantic, on the same thread, reads its windows.
  const words = raw.split(' ');
  const rng = mulberry32(chars);
  const shuffled = (): string => shuffleInPlace([...words], rng).join(' ');
  record(
    'whole scan, tier=accurate, window cache',
    chars,
    await time(
      () =>
        cached.engine.scan(
          { surface: 'user_message', text: shuffled(), tier: 'accurate' },
          { deadlineAt: Date.now() + 3_600_000 },
        ),
      400,
    ),
  );
}
if (json)
  process.stdout.write(
    `${JSON.stringify({ machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, rows }, null, 2)}\n`,
  );
await scanning.close();
await cached.close();
