/** Shared pieces of the training scripts: manifest updates, logging, classifier data and evaluation. */
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chunkTexts } from '../../engine/chunk.ts';
import { TextFeaturizer } from '../../inference/text-features.ts';
import { binaryMetrics, chooseThresholds, rocAuc } from '../metrics.ts';
import { MODELS_DIR, type ModelEntry, type Thresholds } from '../../inference/manifest.ts';
import { sha256Hex } from '../data/datasets.ts';
import { Csr } from './trainers.ts';

export type ManifestEntry = ModelEntry & { training_data_sha256: string; seed: number };

const ORDER = ['pi-fast', 'pi-accurate', 'toxicity', 'pii-ner'];

/** Replaces (or adds) this model's entry in models/manifest.json. */
export function upsertManifestEntry(entry: ManifestEntry, dir: string = MODELS_DIR): void {
  const file = path.join(dir, 'manifest.json');
  let models: ManifestEntry[] = [];
  if (existsSync(file)) models = (JSON.parse(readFileSync(file, 'utf8')) as { models: ManifestEntry[] }).models ?? [];
  models = models.filter((m) => m.id !== entry.id);
  models.push(entry);
  const rank = (id: string): number => (ORDER.includes(id) ? ORDER.indexOf(id) : ORDER.length);
  models.sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));
  writeFileSync(file, `${JSON.stringify({ models }, null, 2)}\n`);
}

export function writeModelFile(
  id: string,
  name: string,
  bytes: Uint8Array,
): { file: string; sha256: string; bytes: number } {
  const dir = path.join(MODELS_DIR, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), bytes);
  return { file: `${id}/${name}`, sha256: sha256Hex(bytes), bytes: bytes.length };
}

/** What the card of a model behind a calibrated detector ends with: the served scale and the public validation figures. */
export const CARD_FOOTER = `
## Served scale and public validation
The detector serves this model's score calibrated per tier form and surface group: its thresholds stand
for a benign false-alarm rate of 5 % (warn 0.5), 2 % (flag 0.7) and 0.5 % (block 0.9), fitted by
\`npm run train:thresholds\` (manifest \`calibration\`; docs/decisions/0011). The thresholds above are the
model's own, on its raw score. Per family, language and surface group on the public validation set, every
detector and tier: [models/VALIDATION.md](../VALIDATION.md) (\`npm run eval:validation -- --publish\`).
`;

/** The models whose scores reach a calibrated detector score (their cards get {@link CARD_FOOTER}). */
const CALIBRATED_MODELS: ReadonlySet<string> = new Set([
  'pi-fast',
  'pi-accurate',
  'pi-semantic',
  'toxicity',
  'toxicity-semantic',
]);

export function writeCard(id: string, markdown: string, name = 'card.md'): void {
  const dir = path.join(MODELS_DIR, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), markdown.trimEnd() + '\n' + (CALIBRATED_MODELS.has(id) ? CARD_FOOTER : ''));
}

export function makeLogger(name: string): (msg: string) => void {
  const t0 = Date.now();
  return (msg: string) => {
    process.stdout.write(`[${name} ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}\n`);
  };
}

// ---------------------------------------------------------------------------------------------
// Binary text classification data

export interface Example {
  text: string;
  label: number;
  family: string;
}

/**
 * Training groups from examples, scored like the engine scores long inputs (max over `maxChars`
 * chunks): a benign text longer than `maxChars` becomes one benign group per chunk (every chunk of a
 * benign text is benign); a positive becomes ONE group of its chunks (up to `posCapChars`), trained
 * multiple-instance style (the gradient goes to its highest-scoring chunk), because the injected
 * part may be in any chunk. Per-group weights: a family's weight is damped by sqrt(cap / size) when
 * it has more than `familyCap` groups, then each class is scaled to half of the total.
 */
export function buildTrainingSet(
  examples: Example[],
  featurizer: TextFeaturizer,
  maxChars: number,
  posCapChars: number,
  familyCap: number,
  log: (m: string) => void,
): { csr: Csr; groups: Int32Array; labels: Int8Array; weights: Float32Array; families: string[] } {
  const items: { chunks: string[]; label: number; family: string }[] = [];
  for (const e of examples) {
    if (e.label === 0)
      for (const c of chunkTexts(e.text, maxChars)) items.push({ chunks: [c], label: 0, family: e.family });
    else
      items.push({
        chunks: chunkTexts(e.text.length > posCapChars ? e.text.slice(0, posCapChars) : e.text, maxChars),
        label: 1,
        family: e.family,
      });
  }
  const famCount = new Map<string, number>();
  for (const r of items) famCount.set(`${r.label}|${r.family}`, (famCount.get(`${r.label}|${r.family}`) ?? 0) + 1);
  const csr = new Csr();
  const groups = new Int32Array(items.length + 1);
  const labels = new Int8Array(items.length);
  const weights = new Float32Array(items.length);
  const families: string[] = [];
  let t = Date.now();
  items.forEach((r, i) => {
    groups[i] = csr.rows;
    for (const c of r.chunks) {
      const n = featurizer.bag(c);
      csr.push(featurizer.ids, featurizer.values, n);
    }
    labels[i] = r.label;
    const size = famCount.get(`${r.label}|${r.family}`) as number;
    weights[i] = size > familyCap ? Math.sqrt(familyCap / size) : 1;
    families.push(r.family);
    if (Date.now() - t > 5000) {
      log(`featurized ${i + 1}/${items.length}`);
      t = Date.now();
    }
  });
  groups[items.length] = csr.rows;
  let wp = 0;
  let wn = 0;
  for (let i = 0; i < items.length; i++) {
    if (labels[i] === 1) wp += weights[i] as number;
    else wn += weights[i] as number;
  }
  const total = items.length;
  for (let i = 0; i < items.length; i++)
    weights[i] = (weights[i] as number) * (labels[i] === 1 ? total / 2 / wp : total / 2 / wn);
  const pos = labels.reduce((a, b) => a + b, 0);
  log(
    `training groups ${items.length} (pos ${pos}, neg ${items.length - pos}), rows ${csr.rows}, nnz ${csr.nnz} (avg ${(csr.nnz / csr.rows).toFixed(0)})`,
  );
  return { csr, groups, labels, weights, families };
}

/** Score of a text as the engine would compute it: max over `maxChars` chunks. */
export async function chunkedScores(
  texts: string[],
  maxChars: number,
  scoreBatch: (t: string[]) => Promise<number[]> | number[],
): Promise<number[]> {
  const out: number[] = [];
  const batch: string[] = [];
  const owner: number[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const s = await scoreBatch(batch);
    s.forEach((v, k) => {
      const o = owner[k] as number;
      out[o] = Math.max(out[o] ?? 0, v);
    });
    batch.length = 0;
    owner.length = 0;
  };
  for (let i = 0; i < texts.length; i++) {
    out[i] = 0;
    for (const c of chunkTexts(texts[i] as string, maxChars)) {
      batch.push(c);
      owner.push(i);
      if (batch.length >= 64) await flush();
    }
  }
  await flush();
  return out;
}

export interface EvalReport {
  thresholds: Thresholds;
  overall: ReturnType<typeof binaryMetrics>;
  overall_at_0_5: ReturnType<typeof binaryMetrics>;
  /** Held-out source families only (no generated hard negatives). */
  sources_only: ReturnType<typeof binaryMetrics>;
  hard_negatives: {
    n: number;
    fpr_warn: number;
    fpr_flag: number;
    fpr_block: number;
    fpr_0_5: number;
    by_category: Record<string, { n: number; fpr_flag: number; fpr_warn: number }>;
  };
  per_source: Record<
    string,
    {
      n: number;
      pos: number;
      neg: number;
      recall_flag?: number;
      fpr_flag?: number;
      recall_0_5?: number;
      fpr_0_5?: number;
      roc_auc?: number | null;
    }
  >;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export function evaluateBinary(
  val: Example[],
  valScores: number[],
  hard: { category: string }[],
  hardScores: number[],
  /** how thresholds are chosen on the validation + hard-negative scores (default: `chooseThresholds`) */
  choose: (scores: number[], labels: number[]) => Thresholds = (s, l) => chooseThresholds(s, l),
): EvalReport {
  const allScores = [...valScores, ...hardScores];
  const allLabels = [...val.map((e) => e.label), ...hard.map(() => 0)];
  const thresholds = choose(allScores, allLabels);
  const fprAt = (s: number[], t: number): number => (s.length ? r4(s.filter((x) => x > t).length / s.length) : 0);
  const byCat: Record<string, { n: number; fpr_flag: number; fpr_warn: number }> = {};
  const cats = [...new Set(hard.map((h) => h.category))].sort();
  for (const c of cats) {
    const s = hardScores.filter((_, i) => (hard[i] as { category: string }).category === c);
    byCat[c] = { n: s.length, fpr_flag: fprAt(s, thresholds.flag_above), fpr_warn: fprAt(s, thresholds.warn_above) };
  }
  const perSource: EvalReport['per_source'] = {};
  const fams = [...new Set(val.map((e) => e.family))].sort();
  for (const f of fams) {
    const idx = val.map((e, i) => (e.family === f ? i : -1)).filter((i) => i >= 0);
    const s = idx.map((i) => valScores[i] as number);
    const y = idx.map((i) => (val[i] as Example).label);
    const pos = y.filter((v) => v === 1).length;
    const neg = y.length - pos;
    const entry: EvalReport['per_source'][string] = { n: y.length, pos, neg };
    if (pos) {
      entry.recall_flag = r4(s.filter((v, k) => y[k] === 1 && v > thresholds.flag_above).length / pos);
      entry.recall_0_5 = r4(s.filter((v, k) => y[k] === 1 && v > 0.5).length / pos);
    }
    if (neg) {
      entry.fpr_flag = r4(s.filter((v, k) => y[k] === 0 && v > thresholds.flag_above).length / neg);
      entry.fpr_0_5 = r4(s.filter((v, k) => y[k] === 0 && v > 0.5).length / neg);
    }
    if (pos && neg) {
      const a = rocAuc(s, y);
      entry.roc_auc = a === null ? null : r4(a);
    }
    perSource[f] = entry;
  }
  return {
    thresholds,
    overall: binaryMetrics(allScores, allLabels, thresholds.flag_above),
    overall_at_0_5: binaryMetrics(allScores, allLabels, 0.5),
    sources_only: binaryMetrics(
      valScores,
      val.map((e) => e.label),
      thresholds.flag_above,
    ),
    hard_negatives: {
      n: hardScores.length,
      fpr_warn: fprAt(hardScores, thresholds.warn_above),
      fpr_flag: fprAt(hardScores, thresholds.flag_above),
      fpr_block: fprAt(hardScores, thresholds.block_above),
      fpr_0_5: fprAt(hardScores, 0.5),
      by_category: byCat,
    },
    per_source: perSource,
  };
}

export function logReport(report: EvalReport, log: (m: string) => void): void {
  const o = report.overall;
  log(`thresholds ${JSON.stringify(report.thresholds)}`);
  log(
    `held-out (sources + hard negatives) @flag: acc ${o.accuracy} P ${o.precision} R ${o.recall} F1 ${o.f1} AUC ${o.roc_auc} FPR ${o.fpr}`,
  );
  const s = report.sources_only;
  log(`held-out sources only @flag: acc ${s.accuracy} P ${s.precision} R ${s.recall} F1 ${s.f1} AUC ${s.roc_auc}`);
  const h = report.hard_negatives;
  log(`hard negatives (n=${h.n}) FPR warn ${h.fpr_warn} flag ${h.fpr_flag} block ${h.fpr_block} @0.5 ${h.fpr_0_5}`);
  for (const [f, e] of Object.entries(report.per_source)) log(`  ${f}: ${JSON.stringify(e)}`);
}

/** Markdown tables for a model card. */
export function reportMarkdown(report: EvalReport): string {
  const o = report.overall;
  const s = report.sources_only;
  const z = report.overall_at_0_5;
  const lines: string[] = [];
  lines.push(
    '| split | threshold | n | accuracy | precision | recall | F1 | FPR | ROC-AUC |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  lines.push(
    `| held-out sources + hard negatives | flag ${o.threshold} | ${o.n} | ${o.accuracy} | ${o.precision} | ${o.recall} | ${o.f1} | ${o.fpr} | ${o.roc_auc} |`,
  );
  lines.push(
    `| held-out sources + hard negatives | 0.5 | ${z.n} | ${z.accuracy} | ${z.precision} | ${z.recall} | ${z.f1} | ${z.fpr} | ${z.roc_auc} |`,
  );
  lines.push(
    `| held-out sources only | flag ${s.threshold} | ${s.n} | ${s.accuracy} | ${s.precision} | ${s.recall} | ${s.f1} | ${s.fpr} | ${s.roc_auc} |`,
  );
  lines.push(
    '',
    `Thresholds: warn_above ${report.thresholds.warn_above}, flag_above ${report.thresholds.flag_above}, block_above ${report.thresholds.block_above}.`,
    '',
  );
  const h = report.hard_negatives;
  lines.push(
    `Generated hard negatives (held-out templates, n = ${h.n}): FPR ${h.fpr_warn} above warn, ${h.fpr_flag} above flag, ${h.fpr_block} above block, ${h.fpr_0_5} above 0.5.`,
    '',
  );
  lines.push('| hard-negative category | n | FPR > warn | FPR > flag |', '|---|---|---|---|');
  for (const [c, e] of Object.entries(h.by_category)) lines.push(`| ${c} | ${e.n} | ${e.fpr_warn} | ${e.fpr_flag} |`);
  lines.push('', 'Per held-out source family (recall on positives / FPR on negatives, at flag and at 0.5):', '');
  lines.push(
    '| source family | n | pos | neg | recall@flag | recall@0.5 | FPR@flag | FPR@0.5 | ROC-AUC |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const [f, e] of Object.entries(report.per_source)) {
    lines.push(
      `| ${f} | ${e.n} | ${e.pos} | ${e.neg} | ${e.recall_flag ?? ''} | ${e.recall_0_5 ?? ''} | ${e.fpr_flag ?? ''} | ${e.fpr_0_5 ?? ''} | ${e.roc_auc ?? ''} |`,
    );
  }
  return lines.join('\n');
}
