/**
 * Latency of the adversarial-suffix scorer alone (pi-suffix, in-process, one thread): p50/p99 per call
 * and per 1,000 characters at 100, 1,000 and 10,000 characters. Run: `node --import tsx benchmarks/pi-suffix.ts`.
 * `npm run bench:detectors` measures it too, next to the other detectors.
 */
import { loadCharLm } from '../inference/char-lm.ts';
import { modelEntry } from '../inference/manifest.ts';
import { textOf } from './fixtures.ts';

const t0 = performance.now();
const lm = loadCharLm(modelEntry('pi-suffix'));
process.stdout.write(`load (sha256 + table decode): ${(performance.now() - t0).toFixed(1)} ms\n`);
for (const chars of [100, 1_000, 10_000]) {
  const text = textOf(chars, 'mixed');
  for (let i = 0; i < 200; i++) lm.score(text);
  const samples: number[] = [];
  const end = performance.now() + 1_000;
  while (samples.length < 50 || performance.now() < end) {
    const t = performance.now();
    lm.score(text);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const p50 = samples[Math.floor(samples.length / 2)]!;
  const p99 = samples[Math.floor(samples.length * 0.99)]!;
  process.stdout.write(
    `${String(chars).padStart(6)} chars  p50 ${p50.toFixed(4)} ms  p99 ${p99.toFixed(4)} ms  p50 per 1,000 chars ${((p50 * 1000) / chars).toFixed(4)} ms  (${samples.length} runs)\n`,
  );
}
