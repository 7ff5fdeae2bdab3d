/**
 * `npm run bench:toxicity-gate [-- --size 1000] [--seed 25] [--threads 2]`
 *
 * The share of the `mix` scenario's auto-tier scans whose toxicity cascade reaches the sentence encoder
 * (toxicity-semantic), counted in-process on the service's own scan path (`startScanning`: normalisation,
 * spelling view, windows, the worker pool) the way `cf_detector_cascade_total` counts it: full / (early +
 * full). The mix's texts are the benchmark's (mix-fixtures.ts), each slot filled with its own marker as
 * the HTTP benchmark does, so the numbers match what `npm run bench -- --scenario mix` reports for
 * toxicity, without the result cache (every text is distinct here anyway, but for the repeats).
 *
 * Also prints, per kind of request, how many reached the encoder, so a gate change can be read against
 * the traffic it moves.
 */
import { parseArgs } from 'node:util';
import type { Surface } from '../engine/detector.ts';
import { cascadeCounts, scanText, startEvalScanning } from '../training/eval-scan.ts';
import { fill, markerOf, SLOT } from './body-source.ts';
import { mixRequests, type MixKind } from './mix-fixtures.ts';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '25' },
    threads: { type: 'string', default: '2' },
  },
  strict: true,
});

const requests = mixRequests(Number(values.size), Number(values.seed));
const { scanning, metrics } = await startEvalScanning(Number(values.threads), 1);
const byKind = new Map<MixKind, { early: number; full: number }>();
// one scan at a time, so each scan's counter step is its own (the share does not depend on concurrency)
for (const [i, q] of requests.entries()) {
  const before = await cascadeCounts(metrics, 'toxicity');
  await scanText(scanning, 'toxicity', 'auto', q.surface as Surface, fill(q.text.split(SLOT), markerOf(i)));
  const after = await cascadeCounts(metrics, 'toxicity');
  const row = byKind.get(q.kind) ?? { early: 0, full: 0 };
  row.early += after.early - before.early;
  row.full += after.full - before.full;
  byKind.set(q.kind, row);
}
const { early, full } = await cascadeCounts(metrics, 'toxicity');
await scanning.close();

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
process.stdout.write(
  `mix (${requests.length} requests, seed ${values.seed}), toxicity on the auto tier:\n` +
    `reached the encoder: ${full} of ${early + full} cascaded scans (${pct(full, early + full)} %)\n`,
);
for (const [kind, r] of byKind)
  if (r.early + r.full > 0) process.stdout.write(`  ${kind.padEnd(12)} ${r.full} of ${r.early + r.full}\n`);
