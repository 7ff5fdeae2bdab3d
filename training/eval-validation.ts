/**
 * `npm run eval -- --suite validation` (`npm run eval:validation`): scores the public validation sets
 * (`$DATASETS_DIR/validation/`, read at run time, never copied) and the team's own eval files through the
 * service's scan path, per detector × tier, and writes to `--out` (default `models/.eval/validation/`):
 * - `<detector>-<tier>.scores.jsonl`: one line per input row, in order — `{score, label, set,
 *   surface_group, family, source, lang, intent, note}`, no text — and `<detector>-<tier>.meta.json`
 *   (thresholds, cascade counts), which `--reuse` reads back instead of scanning;
 * - `<detector>-<tier>.report.json` and `.md` (`eval-suite-report.ts`), the markdown also on stdout.
 * Inputs: prompt_injection — `validation/injection_public.jsonl` (family `indirect` on surface
 * `document`, the rest on `user_message`), `training/data/written/eval/canonical-overrides.jsonl` and
 * `benign-pool.jsonl` when present; toxicity — `validation/toxicity_public.jsonl` and
 * `models/.eval/toxicity-functional.jsonl` when `npm run eval:sets` has written it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Surface, Tier } from '../engine/detector.ts';
import { surfaceGroup } from '../engine/detector.ts';
import type { Thresholds } from '../inference/manifest.ts';
import { datasetsDir, readJsonl, REPO_ROOT } from './data/datasets.ts';
import { languageOf } from './eval-language.ts';
import { cascadeCounts, scanText, startEvalScanning, type EvalScanning } from './eval-scan.ts';
import { modalThresholds, type SuiteRow } from './eval-suite.ts';
import { buildSuiteReport, renderSuiteReport, type SuiteDetector, type SuiteMeta } from './eval-suite-report.ts';

export const SUITE_DETECTORS: readonly SuiteDetector[] = ['prompt_injection', 'toxicity'];
export const DEFAULT_SUITE_OUT = path.join(REPO_ROOT, 'models/.eval/validation');

export interface SuiteOptions {
  detectors: SuiteDetector[];
  tiers: Tier[];
  threads: number;
  concurrency: number;
  /** First N rows of each input file. */
  limit: number | null;
  out: string;
  /** Write the scores (and meta) only, no report. */
  scoresOnly: boolean;
  /** Build the reports from the scores an earlier run wrote to `out`, without scanning. */
  reuse: boolean;
  quiet: boolean;
  /** Also write every report into `models/VALIDATION.md`, the table the model cards point to. */
  publish?: boolean;
}

/** The published validation report (`--publish`), linked from every model card. */
export const PUBLISHED_REPORT = path.join(REPO_ROOT, 'models/VALIDATION.md');

interface InputRow {
  text: string;
  surface: Surface;
  row: SuiteRow;
}

type Raw = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function readRows(file: string, limit: number | null): Raw[] {
  const rows = readJsonl<Raw>(file);
  return limit === null ? rows : rows.slice(0, limit);
}

/** An input row, or null (with a warning) when it has no string `text`. */
function inputRow(set: string, raw: Raw, surface: Surface, label: 0 | 1, file: string, i: number): InputRow | null {
  const text = str(raw.text);
  if (text === undefined) {
    process.stderr.write(`${file}:${i + 1}: no string "text", skipped\n`);
    return null;
  }
  const source = str(raw.source);
  return {
    text,
    surface,
    row: {
      score: 0,
      label,
      set,
      surface_group: surfaceGroup(surface),
      family: str(raw.family),
      source,
      lang: str(raw.lang) ?? languageOf(source, text),
      intent: str(raw.intent),
    },
  };
}

const labelOf = (raw: Raw, otherwise: 0 | 1): 0 | 1 =>
  raw.label === 1 || raw.label === true ? 1 : raw.label === 0 || raw.label === false ? 0 : otherwise;

/** Every input row of a detector, in file order. @throws when the validation file is missing. */
export function loadSuiteInputs(detector: SuiteDetector, limit: number | null): InputRow[] {
  const out: InputRow[] = [];
  const add = (set: string, file: string, each: (raw: Raw, i: number) => InputRow | null, optional: boolean) => {
    if (!existsSync(file)) {
      if (optional) return;
      throw new Error(`${file} not found (DATASETS_DIR=${datasetsDir()})`);
    }
    readRows(file, limit).forEach((raw, i) => {
      const r = each(raw, i);
      if (r) out.push(r);
    });
    process.stderr.write(`${detector}: ${set} from ${file}\n`);
  };
  const validation = path.join(datasetsDir(), 'validation');
  if (detector === 'prompt_injection') {
    const file = path.join(validation, 'injection_public.jsonl');
    add(
      'validation',
      file,
      (raw, i) =>
        inputRow('validation', raw, raw.family === 'indirect' ? 'document' : 'user_message', labelOf(raw, 0), file, i),
      false,
    );
    const written = path.join(REPO_ROOT, 'training/data/written/eval');
    const overrides = path.join(written, 'canonical-overrides.jsonl');
    add(
      'canonical-overrides',
      overrides,
      (raw, i) => inputRow('canonical-overrides', raw, 'user_message', labelOf(raw, 1), overrides, i),
      true,
    );
    const pool = path.join(written, 'benign-pool.jsonl');
    add(
      'benign-pool',
      pool,
      (raw, i) => {
        const group = raw.surface_group ?? 'prompt';
        if (group !== 'prompt' && group !== 'document') {
          process.stderr.write(`${pool}:${i + 1}: surface_group must be prompt or document, skipped\n`);
          return null;
        }
        return inputRow('benign-pool', raw, group === 'document' ? 'document' : 'user_message', 0, pool, i);
      },
      true,
    );
  } else {
    const file = path.join(validation, 'toxicity_public.jsonl');
    add('validation', file, (raw, i) => inputRow('validation', raw, 'user_message', labelOf(raw, 0), file, i), false);
    const functional = path.join(REPO_ROOT, 'models/.eval/toxicity-functional.jsonl');
    add(
      'functional',
      functional,
      (raw, i) => inputRow('functional', raw, 'user_message', labelOf(raw, 0), functional, i),
      true,
    );
  }
  return out;
}

const base = (opts: SuiteOptions, detector: SuiteDetector, tier: Tier) => path.join(opts.out, `${detector}-${tier}`);

/** Scores every row (at most `concurrency` scans in flight); rows keep their order. */
async function scoreRows(
  ev: EvalScanning,
  detector: SuiteDetector,
  tier: Tier,
  inputs: readonly InputRow[],
  opts: SuiteOptions,
): Promise<{ rows: SuiteRow[]; thresholds: Thresholds[] }> {
  const catalog = ev.scanning.engine.registry.get(detector)!.thresholds;
  const rows = new Array<SuiteRow>(inputs.length);
  const thresholds = new Array<Thresholds>(inputs.length);
  const started = Date.now();
  let next = 0;
  let done = 0;
  let lastProgress = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const i = next++;
      const input = inputs[i]!;
      const result = await scanText(ev.scanning, detector, tier, input.surface, input.text);
      if (!result) throw new Error(`${detector} did not run on surface ${input.surface}`);
      rows[i] = {
        ...input.row,
        score: Math.round(result.score * 1e6) / 1e6,
        ...(result.note ? { note: result.note } : {}),
      };
      thresholds[i] = result.thresholds ?? catalog;
      done++;
      const now = Date.now();
      if (!opts.quiet && now - lastProgress > 1000) {
        lastProgress = now;
        const rate = done / Math.max(0.001, (now - started) / 1000);
        process.stderr.write(`\r${detector} ${tier}: ${done}/${inputs.length} rows, ${rate.toFixed(0)} rows/s   `);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, inputs.length) }, worker));
  if (!opts.quiet) process.stderr.write(`\r${detector} ${tier}: ${done}/${inputs.length} rows`.padEnd(60) + '\n');
  return { rows, thresholds };
}

function writeScores(file: string, rows: readonly SuiteRow[]): void {
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
}

function readPrevious(opts: SuiteOptions, detector: SuiteDetector, tier: Tier): { rows: SuiteRow[]; meta: SuiteMeta } {
  const b = base(opts, detector, tier);
  for (const f of [`${b}.scores.jsonl`, `${b}.meta.json`])
    if (!existsSync(f)) throw new Error(`--reuse: ${f} not found (run without --reuse first)`);
  return {
    rows: readJsonl<SuiteRow>(`${b}.scores.jsonl`),
    meta: JSON.parse(readFileSync(`${b}.meta.json`, 'utf8')) as SuiteMeta,
  };
}

function report(opts: SuiteOptions, rows: readonly SuiteRow[], meta: SuiteMeta): string {
  const b = base(opts, meta.detector, meta.tier);
  const r = buildSuiteReport(rows, meta);
  const md = renderSuiteReport(r);
  writeFileSync(`${b}.report.json`, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(`${b}.report.md`, md);
  process.stdout.write(`${md}\n`);
  process.stderr.write(`wrote ${b}.report.json and .report.md\n`);
  return md;
}

function publish(reports: readonly string[]): void {
  const head =
    '# Public validation set: every detector and tier\n\n' +
    'Written by `npm run eval:validation -- --publish` (or `--reuse --publish` from stored scores): the public\n' +
    'validation set (`../shared/datasets/validation/`, for choosing models and thresholds only, never trained on)\n' +
    "and the team's eval files (`training/data/written/eval/`), scored through the service's scan path with the\n" +
    'models and calibration of `models/manifest.json`. Recall at FPR x uses thresholds at that false-alarm rate\n' +
    "of the whole file's benign rows of the surface group; warn / flag / block are the shipped thresholds.\n\n";
  writeFileSync(PUBLISHED_REPORT, head + reports.join('\n\n') + '\n');
  process.stderr.write(`wrote ${PUBLISHED_REPORT}\n`);
}

/**
 * Scores (or, with `reuse`, reads back) every detector × tier and writes its scores and report.
 * @throws when an input is missing or a scan fails.
 */
export async function runValidationSuite(opts: SuiteOptions): Promise<void> {
  mkdirSync(opts.out, { recursive: true });
  const reports: string[] = [];
  if (opts.reuse) {
    for (const detector of opts.detectors)
      for (const tier of opts.tiers) {
        const { rows, meta } = readPrevious(opts, detector, tier);
        reports.push(report(opts, rows, meta));
      }
    if (opts.publish) publish(reports);
    return;
  }
  const inputs = new Map(opts.detectors.map((d) => [d, loadSuiteInputs(d, opts.limit)]));
  const ev = await startEvalScanning(opts.threads, opts.concurrency);
  try {
    for (const detector of opts.detectors)
      for (const tier of opts.tiers) {
        const before = await cascadeCounts(ev.metrics, detector);
        const started = Date.now();
        const { rows, thresholds } = await scoreRows(ev, detector, tier, inputs.get(detector)!, opts);
        const after = await cascadeCounts(ev.metrics, detector);
        const catalog = ev.scanning.engine.registry.get(detector)!.thresholds;
        const modal = modalThresholds(thresholds);
        const cascade = { early: after.early - before.early, full: after.full - before.full };
        const meta: SuiteMeta = {
          detector,
          tier,
          thresholds: modal.thresholds ?? catalog,
          catalog_thresholds: catalog,
          other_thresholds: modal.others,
          cascade: cascade.early + cascade.full > 0 ? cascade : null,
          seconds: (Date.now() - started) / 1000,
          limit: opts.limit,
        };
        const b = base(opts, detector, tier);
        writeScores(`${b}.scores.jsonl`, rows);
        writeFileSync(`${b}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
        process.stderr.write(`wrote ${b}.scores.jsonl (${rows.length} rows)\n`);
        if (!opts.scoresOnly) reports.push(report(opts, rows, meta));
      }
  } finally {
    await ev.scanning.close();
  }
  if (opts.publish && !opts.scoresOnly) publish(reports);
}
