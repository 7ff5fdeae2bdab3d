/**
 * `npm run eval -- --detector prompt_injection|toxicity|pii --tier fast|accurate|auto --input IN.jsonl --output OUT.jsonl`
 *
 * Scores every line of IN through the service's own scan path — normalisation, decoded views,
 * chunking, the worker pool, the models and the manifest thresholds — and writes exactly one JSON
 * line per input line, in order:
 * - classifiers: `{"score": 0..1, "detected": score >= the detector's default flag threshold}`;
 * - pii: `{"spans": [{"start", "end", "label"}]}`, character offsets into the original text.
 * A line that is not a JSON object with a string `text` still gets its line (score 0 / no spans)
 * with an `error` field, and a warning on stderr. A row's own `surface` (e.g. `document`, `tool_result`)
 * overrides `--surface` for that row. When the input carries `label` (classifiers) or
 * `spans` (pii), a metrics summary goes to stderr (overall and per `source`; per threat `family` with the
 * worst family when rows carry `family`). Progress on stderr.
 *
 * `npm run eval -- --suite validation [--detector prompt_injection,toxicity] [--tier fast,accurate,auto]
 * [--limit N] [--out DIR] [--scores-only | --reuse]` scores the public validation sets and the team's eval
 * files instead and reports what model selection needs (`eval-validation.ts`).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import type { Surface, Tier } from '../engine/detector.ts';
import { SURFACES, TIERS } from '../engine/detector.ts';
import {
  classifierSummary,
  familySummary,
  piiSummary,
  toEvalLabel,
  type ClassifierRow,
  type PiiEvalRow,
  type Span,
} from './eval-metrics.ts';
import { ExtraModelError } from '../inference/extra-models.ts';
import { cascadeCounts, extraModelCounts, scanText, startEvalScanning } from './eval-scan.ts';
import type { SuiteDetector } from './eval-suite-report.ts';
import { DEFAULT_SUITE_OUT, runValidationSuite, SUITE_DETECTORS } from './eval-validation.ts';

const DETECTORS = ['prompt_injection', 'toxicity', 'pii'] as const;
type EvalDetector = (typeof DETECTORS)[number];

const USAGE = [
  'usage: npm run eval -- --detector prompt_injection|toxicity|pii --tier fast|accurate|auto --input IN.jsonl --output OUT.jsonl [--surface user_message] [--concurrency 64] [--threads N]',
  '       npm run eval -- --suite validation [--detector prompt_injection,toxicity] [--tier fast,accurate,auto] [--limit N] [--out DIR] [--scores-only | --reuse] [--publish] [--concurrency 64] [--threads N]',
].join('\n');

function fail(msg: string): never {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    detector: { type: 'string' },
    tier: { type: 'string' },
    input: { type: 'string' },
    output: { type: 'string' },
    surface: { type: 'string', default: 'user_message' },
    concurrency: { type: 'string', default: '64' },
    threads: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    suite: { type: 'string' },
    limit: { type: 'string' },
    out: { type: 'string' },
    'scores-only': { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    publish: { type: 'boolean', default: false },
  },
  strict: true,
});

const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 4096)
  fail('--concurrency must be an integer in 1..4096');
const threads =
  values.threads === undefined ? Number(process.env.WORKER_THREADS ?? availableParallelism()) : Number(values.threads);
if (!Number.isInteger(threads) || threads < 0 || threads > 64) fail('--threads must be an integer in 0..64');

/** A comma list, each item one of `allowed`. */
function listOf<T extends string>(value: string, allowed: readonly T[], flag: string): T[] {
  const items = value.split(',').map((s) => s.trim());
  for (const s of items) if (!(allowed as readonly string[]).includes(s)) fail(`${flag} takes ${allowed.join(', ')}`);
  return [...new Set(items)] as T[];
}

// a wrong operator model (EXTRA_MODELS_DIR) is the operator's to fix: its message, not a stack trace
try {
  if (values.suite !== undefined) {
    if (values.suite !== 'validation') fail('--suite takes validation');
    if (values.input || values.output) fail('--suite reads its own inputs: no --input / --output');
    if (values['scores-only'] && values.reuse) fail('--scores-only and --reuse exclude each other');
    const limit = values.limit === undefined ? null : Number(values.limit);
    if (limit !== null && (!Number.isInteger(limit) || limit < 1)) fail('--limit must be a positive integer');
    const detectors = listOf<SuiteDetector>(
      values.detector ?? SUITE_DETECTORS.join(','),
      SUITE_DETECTORS,
      '--detector',
    );
    if (detectors.includes('toxicity') && threads === 0 && !values.reuse)
      fail('toxicity runs on the model pool: --threads must be at least 1');
    await runValidationSuite({
      detectors,
      tiers: listOf<Tier>(values.tier ?? TIERS.join(','), TIERS, '--tier'),
      threads,
      concurrency,
      limit,
      out: path.resolve(values.out ?? DEFAULT_SUITE_OUT),
      scoresOnly: values['scores-only'],
      reuse: values.reuse,
      quiet: values.quiet,
      publish: values.publish,
    });
  } else {
    await runFile();
  }
} catch (err) {
  if (!(err instanceof ExtraModelError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

async function runFile(): Promise<void> {
  const detector = values.detector as EvalDetector;
  if (!DETECTORS.includes(detector)) fail(`--detector must be one of ${DETECTORS.join(', ')}`);
  const tier = (values.tier ?? 'accurate') as Tier;
  if (!(TIERS as readonly string[]).includes(tier)) fail(`--tier must be one of ${TIERS.join(', ')}`);
  const surface = values.surface as Surface;
  if (!(SURFACES as readonly string[]).includes(surface)) fail(`--surface must be one of ${SURFACES.join(', ')}`);
  if (!values.input || !values.output) fail('--input and --output are required');
  for (const flag of ['limit', 'out', 'scores-only', 'reuse', 'publish'] as const)
    if (values[flag] !== undefined && values[flag] !== false) fail(`--${flag} goes with --suite validation`);

  const { scanning, metrics } = await startEvalScanning(threads, concurrency);
  const flagAbove = scanning.engine.registry.get(detector)?.thresholds?.flag_above;
  if (detector !== 'pii' && flagAbove === undefined) fail(`detector ${detector} has no default thresholds`);

  interface Parsed {
    text: string | null;
    error?: string;
    row: Record<string, unknown> | null;
    surface?: Surface;
  }

  function parseLine(line: string): Parsed {
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return { text: null, error: 'not JSON', row: null };
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      return { text: null, error: 'not a JSON object', row: null };
    const r = row as Record<string, unknown>;
    if (typeof r.text !== 'string') return { text: null, error: 'no string "text" field', row: r };
    if (r.surface === undefined) return { text: r.text, row: r };
    if (!(SURFACES as readonly unknown[]).includes(r.surface))
      return { text: null, error: `"surface" must be one of ${SURFACES.join(', ')}`, row: r };
    return { text: r.text, row: r, surface: r.surface as Surface };
  }

  type Out = { score: number; detected: boolean; error?: string } | { spans: Span[]; error?: string };

  async function score(p: Parsed): Promise<Out> {
    if (p.text === null)
      return detector === 'pii' ? { spans: [], error: p.error } : { score: 0, detected: false, error: p.error };
    const result = await scanText(scanning, detector, tier, p.surface ?? surface, p.text);
    if (detector === 'pii') {
      const spans: Span[] = [];
      for (const item of result?.items ?? []) {
        const label = toEvalLabel(item.label);
        if (label) spans.push({ start: item.span[0], end: item.span[1], label });
      }
      return { spans };
    }
    const s = result?.score ?? 0;
    return {
      score: Math.round(s * 1e6) / 1e6,
      detected: s >= (result?.thresholds?.flag_above ?? (flagAbove as number)),
    };
  }

  const output = values.output;
  const started = Date.now();
  const input = readline.createInterface({ input: createReadStream(values.input), crlfDelay: Infinity });
  const out = createWriteStream(output);
  const classifierRows: ClassifierRow[] = [];
  const piiRows: PiiEvalRow[] = [];
  let done = 0;
  let lastProgress = 0;
  let errors = 0;

  // Results are written in input order; at most `concurrency` scans are in flight.
  const pending: Promise<{ parsed: Parsed; out: Out }>[] = [];
  async function drainOne(): Promise<void> {
    const { parsed, out: o } = await (pending.shift() as Promise<{ parsed: Parsed; out: Out }>);
    if (!out.write(`${JSON.stringify(o)}\n`)) await once(out, 'drain');
    if (o.error) {
      errors++;
      if (errors <= 20) process.stderr.write(`line ${done + 1}: ${o.error}\n`);
    }
    collect(parsed, o);
    done++;
    const now = Date.now();
    if (!values.quiet && now - lastProgress > 1000) {
      lastProgress = now;
      const rate = done / Math.max(0.001, (now - started) / 1000);
      process.stderr.write(`\r${done} rows, ${rate.toFixed(0)} rows/s`);
    }
  }

  function collect(parsed: Parsed, o: Out): void {
    const row = parsed.row;
    if (!row || parsed.text === null) return;
    const source = typeof row.source === 'string' ? row.source : undefined;
    if ('score' in o && (row.label === 0 || row.label === 1 || typeof row.label === 'boolean')) {
      classifierRows.push({
        score: o.score,
        detected: o.detected,
        label: row.label === 1 || row.label === true ? 1 : 0,
        source,
        family: typeof row.family === 'string' ? row.family : undefined,
      });
    }
    if ('spans' in o && Array.isArray(row.spans)) {
      const gold: Span[] = [];
      for (const s of row.spans as unknown[]) {
        const g = s as { start?: unknown; end?: unknown; label?: unknown };
        if (typeof g?.start === 'number' && typeof g.end === 'number' && typeof g.label === 'string')
          gold.push({ start: g.start, end: g.end, label: g.label });
      }
      piiRows.push({ gold, predicted: o.spans, source });
    }
  }

  for await (const line of input) {
    const parsed: Parsed = line.trim() === '' ? { text: null, error: 'empty line', row: null } : parseLine(line);
    pending.push(score(parsed).then((o) => ({ parsed, out: o })));
    if (pending.length >= concurrency) await drainOne();
  }
  while (pending.length) await drainOne();
  out.end();
  await once(out, 'finish');
  await scanning.close();

  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `\r${done} rows in ${seconds.toFixed(1)} s (${(done / Math.max(seconds, 0.001)).toFixed(0)} rows/s), ${errors} invalid lines; wrote ${output}\n`,
  );
  if (classifierRows.length) process.stderr.write(classifierSummary(classifierRows, detector, tier));
  if (classifierRows.length) process.stderr.write(familySummary(classifierRows));
  if (piiRows.length) process.stderr.write(piiSummary(piiRows));
  // the auto tier's cascade: how many scans the cheap models decided without the deferred encoder
  const { early, full } = await cascadeCounts(metrics, detector);
  if (early + full > 0)
    process.stderr.write(
      `cascade: ${early} of ${early + full} scans (${((100 * early) / (early + full)).toFixed(1)} %) decided without the deferred model\n`,
    );
  // the operators' models (EXTRA_MODELS_DIR) on this detector: how often each ran, or was decided without
  for (const m of scanning.extraModels.filter((m) => m.detector === detector)) {
    const c = await extraModelCounts(metrics, m.name);
    const due = c.early_low + c.early_high + c.full + c.fallback;
    if (due > 0)
      process.stderr.write(
        `extra model ${m.name}: ran on ${c.full} of ${due} scans (${((100 * c.full) / due).toFixed(1)} %); decided without it ${c.early_low} below warn, ${c.early_high} above block; ${c.fallback} fell back\n`,
      );
  }
}
