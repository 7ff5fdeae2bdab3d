/**
 * Trains pi-suffix (`npm run train:pi-suffix`): a character 5-gram language model of BENIGN text only
 * (benign rows of injection.jsonl and injection_extra.jsonl, held-out families excluded), used to flag
 * optimisation-based adversarial suffixes by their per-window surprise. Writes models/pi-suffix/lm.bin,
 * its card and its manifest entry. Options: `--lower` (lower-case text; measured, see the card),
 * `--min-count N` (pruning of orders 4..5, default 3), `--noise N` (generated benign machine text, default 3500), `--dry-run` (print the report only); `--all-positions` (score every ASCII
 * position, not only at and after punctuation); env `SUFFIX_WINDOW` (window length in scored positions, default 16).
 */
import path from 'node:path';
import type { CharLmConfig } from '../../inference/char-lm.ts';
import { encodeTable } from '../../inference/char-lm.ts';
import {
  datasetHash,
  datasetsDir,
  injectionFamily,
  INJECTION_HELDOUT_FAMILIES,
  readJsonl,
  type LabeledRow,
} from '../data/datasets.ts';
import { makeLogger, upsertManifestEntry, writeCard, writeModelFile } from './common.ts';
import { benignNoise } from '../data/benign-noise.ts';
import { evaluateSuffix } from './pi-suffix-eval.ts';
import { suffixCard } from './pi-suffix-card.ts';
import { buildTable, countNgrams, fitKneserNey } from './pi-suffix-lm.ts';

const ID = 'pi-suffix';
const VERSION = '0.3.1';
const args = process.argv.slice(2);
const lower = args.includes('--lower');
const minCountAt = args.indexOf('--min-count');
const minCount = minCountAt >= 0 ? Number(args[minCountAt + 1]) : 3;
const dryRun = args.includes('--dry-run');
const log = makeLogger(ID);

const files = ['injection.jsonl', 'injection_extra.jsonl'].map((f) => path.join(datasetsDir(), f));
const heldoutSet = new Set(INJECTION_HELDOUT_FAMILIES);
const benign = files.flatMap((f) => readJsonl<LabeledRow>(f)).filter((r) => r.label === 0);
const rows = benign.map((r) => ({ text: r.text, family: injectionFamily(r.source) }));
const train = rows.filter((r) => !heldoutSet.has(r.family));
const heldout = rows.filter((r) => heldoutSet.has(r.family));
log(
  `benign rows: ${train.length} train (${train.reduce((a, r) => a + r.text.length, 0)} chars), ${heldout.length} held out`,
);

// generated benign machine text (JSON, code, CSV, logs, shell): `--noise N` samples, default 3500
const noiseAt = args.indexOf('--noise');
const noise = benignNoise(noiseAt >= 0 ? Number(args[noiseAt + 1]) : 3500);
log(`generated benign machine text: ${noise.length} samples (${noise.reduce((a, t) => a + t.length, 0)} chars)`);
const raw = countNgrams([...train.map((r) => r.text), ...noise], lower);
log(`counted: ${raw.map((m) => m.size).join(' / ')} distinct n-grams of orders 1..5`);
const fit = fitKneserNey(raw);
const table = buildTable(fit, raw, minCount);
const bytes = encodeTable(table);
log(`table: 2^${table.bits} slots, ${(bytes.length / 1e6).toFixed(2)} MB`);

const config: CharLmConfig = {
  lower,
  window: Number(process.env.SUFFIX_WINDOW ?? 16),
  min_chars: 8,
  unseen_bits: 12,
  punct_only: !args.includes('--all-positions'),
};
const t0 = performance.now();
const report = evaluateSuffix(table, config, heldout);
log(`evaluated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
log(JSON.stringify(report, null, 1));
if (dryRun) process.exit(0);

const file = writeModelFile(ID, 'lm.bin', bytes);
upsertManifestEntry({
  id: ID,
  version: VERSION,
  task: 'text-classification',
  runtime: 'js-char-lm',
  file: file.file,
  sha256: file.sha256,
  featurizer: {
    type: 'char-lm-v1',
    order: 5,
    ...config,
    min_count: minCount,
    discounts: fit.discounts.map((d) => d.map((x) => Math.round(x * 1000) / 1000)),
  },
  labels: ['benign', 'adversarial_suffix'],
  max_chars: 4000,
  // In bits per character (max window mean surprise), not probabilities: the detector maps them onto its own.
  // warn at FPR 0.02 (strictly below flag even where the calibration set ties), flag at FPR 0.01, block above every benign prompt
  thresholds: {
    warn_above: Math.min(report.thresholds.fpr_02, report.thresholds.fpr_01 - 0.01),
    flag_above: report.thresholds.fpr_01,
    block_above: Math.max(report.thresholds.max_benign, report.thresholds.fpr_01) + 0.25,
  },
  metrics: report.metrics,
  training_data_sha256: datasetHash(files),
  seed: 0,
});
writeCard(
  ID,
  suffixCard({
    lower,
    window: config.window,
    minCount,
    rows: train.length,
    noise: { n: noise.length, chars: noise.reduce((a, t) => a + t.length, 0) },
    heldout: heldout.length,
    bytes: bytes.length,
    report,
    discounts: fit.discounts,
  }),
);
log(`wrote ${file.file} (${file.sha256.slice(0, 12)}…), card and manifest entry`);
