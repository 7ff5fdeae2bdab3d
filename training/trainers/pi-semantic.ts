/**
 * `npm run train:pi-semantic [-- --write]` — pi-semantic: frozen USE-lite embeddings + a logistic head
 * (issue 17). Features per text: the mean and the per-dimension max over its 128-token windows (first
 * and last `SEMANTIC_WINDOWS.maxWindows / 2` windows of longer text: `inference/semantic-classifier.ts` `pooledWindows`),
 * cached in `models/.cache/pi-semantic/`.
 *
 * Training: rows of `../shared/datasets/injection*.jsonl` outside the whole-source hold-out
 * (`INJECTION_HELDOUT_FAMILIES`; a seeded subsample of `DATASET_ROWS`) + `familyTrain(...)` of the four
 * families (as many rows as the lexical models get: `FAMILY_TRAIN_ROWS`). Evaluation:
 * `models/.eval/families.jsonl` (`npm run eval:sets`: VALIDATION generators + dataset_holdout +
 * benign_trigger_words), per family, alone and z-averaged with the fast/accurate scores of the same rows
 * (`--fast`/`--accurate`: outputs of `npm run eval` on families.jsonl, same order). Writes the table to
 * stdout and `models/.cache/pi-semantic/report.json`. With `--write`, the max head (served: the per-dimension
 * max of the window embeddings) becomes the artifact `models/pi-semantic/` (head JSON, manifest entry,
 * card); it has no thresholds of its own — the accurate tier's stacker (`npm run train:pi-stack`) uses it.
 * Options: `--l2` (default 1e-3), `--dataset-only` (heads without the familyTrain rows).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { normalize } from '../../engine/normalize.ts';
import { loadSentenceEncoder, type SentenceEncoder } from '../../inference/sentence-encoder.ts';
import {
  datasetsDir,
  INJECTION_HELDOUT_FAMILIES,
  injectionFamily,
  readJsonl,
  REPO_ROOT,
  type LabeledRow,
} from '../data/datasets.ts';
import { familyTrain, THREAT_FAMILIES } from '../data/families/index.ts';
import { familyStats, type ClassifierRow, type FamilyStats } from '../eval-metrics.ts';
import { mulberry32, shuffleInPlace } from '../prng.ts';
import { makeLogger, writeCard } from './common.ts';
import { semanticCard } from './pi-semantic-card.ts';
import { FAMILY_TRAIN_ROWS, writtenInjectionRows } from './injection-data.ts';
import { headScore, type LogisticHead } from '../../inference/logistic-head.ts';
import { trainHead, zAverage } from './pi-semantic-head.ts';
import {
  EMBEDDING_DIM as DIM,
  pooledEmbeddings,
  SEMANTIC_WINDOWS,
  selectView,
  writeSemanticHead,
} from './semantic-features.ts';

const ID = 'pi-semantic';
const VERSION = '0.2.0';
const SEED = 1717;
const DATASET_ROWS = 10_000;
const CACHE_DIR = path.join(REPO_ROOT, 'models/.cache/pi-semantic');
const log = makeLogger('pi-semantic');

interface Row {
  text: string;
  label: 0 | 1;
  family: string;
  source?: string;
  surface?: string;
}

const { values: args } = parseArgs({
  options: {
    eval: { type: 'string', default: path.join(REPO_ROOT, 'models/.eval/families.jsonl') },
    fast: { type: 'string' },
    accurate: { type: 'string' },
    write: { type: 'boolean', default: false },
    l2: { type: 'string', default: '1e-3' },
    /** train the heads on the dataset rows only (no familyTrain rows) */
    'dataset-only': { type: 'boolean', default: false },
  },
});

function trainingRows(): Row[] {
  const dir = datasetsDir();
  const held = new Set(INJECTION_HELDOUT_FAMILIES);
  const rows = ['injection.jsonl', 'injection_extra.jsonl'].flatMap((f) => readJsonl<LabeledRow>(path.join(dir, f)));
  const seen = new Set<string>();
  const data: Row[] = [];
  for (const r of rows) {
    if (typeof r.text !== 'string' || r.text.trim() === '') continue;
    const family = injectionFamily(r.source);
    if (held.has(family)) continue;
    const k = r.text.toLowerCase().replace(/\s+/g, ' ').trim();
    if (seen.has(k)) continue;
    seen.add(k);
    data.push({ text: r.text, label: r.label === 1 ? 1 : 0, family: `dataset:${family}` });
  }
  const sample = shuffleInPlace(data, mulberry32(SEED)).slice(0, DATASET_ROWS);
  const fam = THREAT_FAMILIES.flatMap((f) =>
    familyTrain(f, FAMILY_TRAIN_ROWS[f]).map((r): Row => ({
      text: r.text,
      label: r.label,
      family: `train:${f}`,
      surface: r.surface,
    })),
  );
  const written = writtenInjectionRows().map((e): Row => ({
    text: e.text,
    label: e.label === 1 ? 1 : 0,
    family: e.family,
  }));
  log(
    `training rows: ${sample.length} of ${data.length} dataset rows (seeded subsample) + ${fam.length} family rows + ${written.length} hand-written rows`,
  );
  return [...sample, ...fam, ...written];
}

const pooling = {
  windowTokens: SEMANTIC_WINDOWS.windowTokens,
  maxWindows: SEMANTIC_WINDOWS.maxWindows,
  cacheDir: CACHE_DIR,
  log,
};
const features = (name: string, texts: readonly string[], enc: () => Promise<SentenceEncoder>) =>
  pooledEmbeddings(name, texts, enc, pooling);
const select = selectView;

function scoreAll(head: LogisticHead, x: Float32Array, n: number): number[] {
  return Array.from({ length: n }, (_, i) => headScore(head, x, i * head.dim));
}

function readScores(file: string | undefined, n: number): number[] | undefined {
  if (!file) return undefined;
  const s = readJsonl<{ score: number }>(file).map((r) => r.score);
  if (s.length !== n) throw new Error(`${file}: ${s.length} rows, the eval set has ${n}`);
  return s;
}

const f3 = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

async function main(): Promise<void> {
  const t0 = Date.now();
  let encoder: SentenceEncoder | undefined;
  const enc = async (): Promise<SentenceEncoder> => (encoder ??= await loadSentenceEncoder({ batchRows: 32 }));
  const train = trainingRows().map((r) => ({ ...r, text: normalize(r.text).text }));
  const evalRows = readJsonl<Row>(args.eval).map((r) => ({ ...r, text: normalize(r.text).text }));
  const xTrain = await features(
    'train',
    train.map((r) => r.text),
    enc,
  );
  const xEval = await features(
    'eval',
    evalRows.map((r) => r.text),
    enc,
  );
  await encoder?.release();
  const l2 = Number(args.l2);
  const use = train
    .map((r, i) => (args['dataset-only'] && r.family.startsWith('train:') ? -1 : i))
    .filter((i) => i >= 0);
  const labels = use.map((i) => train[i]!.label);
  const nE = evalRows.length;
  const columns: Record<string, number[]> = {};
  const heads: Record<string, LogisticHead> = {};
  for (const view of ['max', 'meanmax'] as const) {
    const t = Date.now();
    heads[view] = trainHead(select(xTrain, train.length, view, use), labels, view === 'max' ? DIM : 2 * DIM, { l2 });
    columns[`semantic-${view}`] = scoreAll(heads[view], select(xEval, nE, view), nE);
    log(`head ${view}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  // a document head: indirect family rows + long dataset rows (documents, e-mails, code)
  const docIdx = use.filter((i) => train[i]!.family === 'train:indirect_instruction' || train[i]!.text.length >= 400);
  heads.document = trainHead(
    select(xTrain, train.length, 'max', docIdx),
    docIdx.map((i) => train[i]!.label),
    DIM,
    { l2 },
  );
  columns['semantic-document'] = scoreAll(heads.document, select(xEval, nE, 'max'), nE);
  const docSurface = (r: Row): boolean => r.surface === 'document' || r.surface === 'tool_result';
  columns['semantic-routed'] = evalRows.map((r, i) =>
    docSurface(r) ? (columns['semantic-document'] as number[])[i]! : (columns['semantic-max'] as number[])[i]!,
  );
  log(`document head: ${docIdx.length} rows`);
  const fast = readScores(args.fast, nE);
  const accurate = readScores(args.accurate, nE);
  const sem = columns['semantic-routed'] as number[];
  const semMax = columns['semantic-max'] as number[];
  if (accurate) columns['z(accurate, semantic-max)'] = zAverage([accurate, semMax]);
  if (fast) columns.fast = fast;
  if (accurate) columns.accurate = accurate;
  if (accurate) columns['z(accurate, semantic)'] = zAverage([accurate, sem]);
  if (fast) columns['z(fast, semantic)'] = zAverage([fast, sem]);
  if (fast && accurate) columns['z(fast, accurate, semantic)'] = zAverage([fast, accurate, sem]);
  const report: Record<string, FamilyStats[]> = {};
  const lines = [
    '| family (pos / neg) | scorer | recall @ FPR 0.01 | recall @ FPR 0.05 | ROC AUC |',
    '|---|---|---|---|---|',
  ];
  for (const [name, scores] of Object.entries(columns)) {
    const rows: ClassifierRow[] = evalRows.map((r, i) => ({
      score: scores[i] as number,
      detected: false,
      label: r.label,
      family: r.family,
    }));
    report[name] = familyStats(rows).filter((s) => s.positives > 0 && s.negatives > 0);
  }
  const families = [...new Set(Object.values(report).flatMap((s) => s.map((x) => x.family)))].sort();
  for (const f of families)
    for (const [name, stats] of Object.entries(report)) {
      const s = stats.find((x) => x.family === f);
      if (s)
        lines.push(
          `| ${f} (${s.positives} / ${s.negatives}) | ${name} | ${f3(s.recall_at_fpr_01)} | ${f3(s.recall_at_fpr_05)} | ${f3(s.roc_auc)} |`,
        );
    }
  lines.push('', '| scorer | worst family | its recall @ FPR 0.05 | its ROC AUC |', '|---|---|---|---|');
  for (const [name, stats] of Object.entries(report)) {
    const w = [...stats].sort((a, b) => (a.recall_at_fpr_05 ?? -1) - (b.recall_at_fpr_05 ?? -1))[0];
    if (w) lines.push(`| ${name} | ${w.family} | ${f3(w.recall_at_fpr_05)} | ${f3(w.roc_auc)} |`);
  }
  console.log(lines.join('\n'));
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(path.join(CACHE_DIR, 'report.json'), JSON.stringify(report, null, 1));
  if (args.write) writeArtifact(heads.max as LogisticHead, report, train);
  log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** `--write`: the max head becomes the pi-semantic artifact (head JSON, manifest entry, card). */
function writeArtifact(head: LogisticHead, report: Record<string, FamilyStats[]>, train: readonly Row[]): void {
  const stats = report['semantic-max'] ?? [];
  const { encoder, file } = writeSemanticHead({
    id: ID,
    version: VERSION,
    head,
    labels: ['benign', 'injection'],
    // served only as an input of the accurate tier's stacker (pi-accurate `combine`)
    metrics: {
      validation: 'families.jsonl (npm run eval:sets): VALIDATION generators + dataset whole-source hold-out',
      per_family: stats,
      training_rows: train.length,
      l2: Number(args.l2),
    },
    train,
    seed: SEED,
  });
  writeCard(ID, semanticCard({ version: VERSION, encoder, rows: train.length, stats, l2: Number(args.l2) }));
  log(`wrote ${file}, card and manifest entry`);
}

await main();
