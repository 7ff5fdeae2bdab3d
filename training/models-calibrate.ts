/**
 * `npm run models:calibrate -- --model NAME [--limit N] [--org ORG_ID] [--min-events 200] [--dry-run]
 * [--threads N] [--concurrency 64]`
 *
 * Calibrates an operator's text classifier declared in `$EXTRA_MODELS_DIR/models.json`
 * (docs/operators/extra-models.md) and writes `calibration.json` beside its model.onnx, which the
 * service reads at its next start: the stack onto its detector's published score, the anchors at benign
 * FPR 5 / 2 / 0.5 % per surface group, and the auto tier's cascade bounds (`extra-calibrate.ts`).
 *
 * Every row of the detector's public validation set (`$DATASETS_DIR/validation/`; `--limit N`: a
 * stratified, deterministic sample) — and with `--org` (and DATABASE_URL) the organization's consented
 * labeled events, when at least `--min-events` carry a usable label — is scored through the service's own
 * scan path: the detector's published score (accurate tier; the model is served from a copy of its
 * declaration without calibration.json, so the detector does not stack it) and the model's raw score.
 * A token-classification model needs no calibration: the command says what it uses and exits 0.
 * Exit 1 when the declaration, the data or the scan fails, or when the fit gives the model no weight
 * (nothing written); 2 on a usage error.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Surface } from '../engine/detector.ts';
import {
  CALIBRATION_FILE,
  EXTRA_MANIFEST,
  readExtraModels,
  type ExtraModel,
  type ExtraModelDeclaration,
} from '../inference/extra-models.ts';
import { readManifest } from '../inference/manifest.ts';
import { createPool } from '../store/db.ts';
import { calibrationEvents } from '../store/labeled-events.ts';
import { datasetHash } from './data/datasets.ts';
import type { CalibrationRow } from './extra-calibrate-fit.ts';
import {
  assignOrigins,
  eventRows,
  GROUP_SURFACE,
  stratifiedSample,
  validationFiles,
  validationRows,
  type EventUse,
  type InputRow,
} from './extra-calibrate-rows.ts';
import { calibrate } from './extra-calibrate.ts';
import { scanText, startEvalScanning, type EvalScanning } from './eval-scan.ts';

const USAGE =
  'usage: npm run models:calibrate -- --model NAME [--limit N] [--org ORG_ID] [--min-events 200] [--dry-run] [--threads N] [--concurrency 64]';
/** The newest events read from an organization at most. */
const MAX_EVENTS = 50_000;

/** Exit with a message: 2 for a usage error, 1 for anything else. */
function fail(message: string, code: 1 | 2 = 1): never {
  process.stderr.write(`models:calibrate: ${message}${code === 2 ? `\n${USAGE}` : ''}\n`);
  process.exit(code);
}

function parse() {
  try {
    return parseArgs({
      options: {
        model: { type: 'string' },
        limit: { type: 'string' },
        org: { type: 'string' },
        'min-events': { type: 'string', default: '200' },
        'dry-run': { type: 'boolean', default: false },
        threads: { type: 'string' },
        concurrency: { type: 'string', default: '64' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return fail((err as Error).message, 2);
  }
}

const positive = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) fail(`${name} must be a positive integer, not ${v}`, 2);
  return n;
};

const values = parse();
if (!values.model) fail('--model NAME is required', 2);
const limit = positive(values.limit, '--limit');
const minEvents = positive(values['min-events'], '--min-events')!;
const threads = positive(values.threads, '--threads') ?? Number(process.env.WORKER_THREADS ?? 2);
const concurrency = positive(values.concurrency, '--concurrency')!;
const extraDir = process.env.EXTRA_MODELS_DIR;
if (!extraDir)
  fail(
    'EXTRA_MODELS_DIR is not set: point it at the folder holding models.json and the model folders (docs/operators/extra-models.md)',
  );

let models: ExtraModel[];
try {
  models = readExtraModels(
    path.resolve(extraDir),
    readManifest(process.env.MODELS_DIR).models.map((m) => m.id),
  );
} catch (err) {
  fail((err as Error).message);
}
const model = models.find((m) => m.name === values.model);
if (!model)
  fail(
    `no model "${values.model}" in ${path.join(extraDir, EXTRA_MANIFEST)} (declared: ${models.map((m) => m.name).join(', ') || 'none'})`,
    2,
  );

if (model.task === 'token-classification') {
  const entities = Object.entries(model.entities)
    .map(([t, l]) => `${t} → ${l}`)
    .join(', ');
  process.stdout.write(
    `${model.name}@${model.version} is a token-classification model (detector ${model.detector}): it needs no calibration.\n` +
      `Its entities join the detector's as they are: ${entities}; entities below confidence ${model.minConfidence} dropped; ` +
      `surfaces ${model.surfaces?.join(', ') ?? `every one of ${model.detector}'s`}; windows of ${model.maxTokens} tokens ` +
      `overlapping by ${model.strideTokens}, pieces of ${model.maxChars} characters; timeout ${model.timeoutMs} ms.\n`,
  );
  process.exit(0);
}

/** The model's declaration as written in models.json. */
function declarationOf(name: string): ExtraModelDeclaration {
  const raw = JSON.parse(readFileSync(path.join(extraDir!, EXTRA_MANIFEST), 'utf8')) as {
    models: ExtraModelDeclaration[];
  };
  return raw.models.find((d) => d.name === name)!;
}

/**
 * A models.json declaring this model alone, in a folder of links to its files but calibration.json: the
 * service then scores the model (scoreExtra) without stacking it onto the detector, even when an earlier
 * calibration of these very bytes is in the model's folder.
 */
function shadowDir(m: ExtraModel): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cf-calibrate-'));
  const folder = path.join(dir, m.name);
  mkdirSync(folder);
  for (const file of Object.keys(m.sha256)) symlinkSync(path.join(m.dir, file), path.join(folder, file));
  const { path: _path, ...declaration } = declarationOf(m.name);
  writeFileSync(path.join(dir, EXTRA_MANIFEST), JSON.stringify({ models: [declaration] }, null, 2));
  return dir;
}

async function readEvents(orgId: string): Promise<EventUse> {
  const url = process.env.DATABASE_URL;
  if (!url) fail('--org needs DATABASE_URL (the service database the labeled events are in)');
  const db = createPool(url, 1, (err) => process.stderr.write(`database: ${err.message}\n`));
  try {
    const { rows, withoutConsent } = await calibrationEvents(db, orgId, MAX_EVENTS);
    const use = eventRows(model!.detector, rows, minEvents);
    process.stderr.write(
      `events of ${orgId}: ${use.read} consented with input read (newest ${MAX_EVENTS} at most), ${withoutConsent} without training consent not read, ` +
        `${use.usable} with a usable label, ${use.unusable} without one; ` +
        (use.used ? 'used\n' : `fewer than --min-events ${minEvents}: not used\n`),
    );
    return use;
  } finally {
    await db.end();
  }
}

/** Both scores of every row (at most `concurrency` rows in flight), in row order. */
async function scoreRows(ev: EvalScanning, m: ExtraModel, rows: readonly InputRow[]): Promise<CalibrationRow[]> {
  const out = new Array<CalibrationRow>(rows.length);
  const started = Date.now();
  let next = 0;
  let done = 0;
  let notes = 0;
  let last = 0;
  const worker = async () => {
    for (let i = next++; i < rows.length; i = next++) {
      const r = rows[i]!;
      const surface: Surface = GROUP_SURFACE[r.group];
      const [result, score] = await Promise.all([
        scanText(ev.scanning, m.detector, 'accurate', surface, r.text),
        ev.scanning.scoreExtra(m.name, r.text, surface),
      ]);
      if (!result) throw new Error(`${m.detector} did not run on surface ${surface}`);
      if (result.note) notes++;
      const { text: _text, ...rest } = r;
      out[i] = { ...rest, base: result.score, model: score };
      done++;
      // progress on a terminal only: a log file gets the summary line
      if (process.stderr.isTTY && Date.now() - last > 1000) {
        last = Date.now();
        const rate = done / Math.max(0.001, (last - started) / 1000);
        process.stderr.write(`\rscoring: ${done}/${rows.length} rows, ${rate.toFixed(1)} rows/s   `);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  process.stderr.write(
    `${process.stderr.isTTY ? '\r' : ''}scoring: ${rows.length} rows in ${((Date.now() - started) / 1000).toFixed(0)} s`.padEnd(
      60,
    ) + '\n',
  );
  if (notes)
    process.stderr.write(
      `warning: ${notes} rows were scored with a note (a fallback or an unavailable model): their detector score is not the accurate tier's\n`,
    );
  return out;
}

const files = validationFiles(model.detector);
let rows: InputRow[];
try {
  rows = validationRows(model.detector);
} catch (err) {
  fail(`${(err as Error).message} (DATASETS_DIR: the folder holding validation/)`);
}
if (limit !== undefined) rows = stratifiedSample(rows, limit);
const events = values.org ? await readEvents(values.org) : null;
const all = [...rows, ...(events?.rows ?? [])];
assignOrigins(all);

/** Both scores of every row, the model served from its shadow declaration; the shadow removed after. */
async function scoreAll(m: ExtraModel, rows: readonly InputRow[]): Promise<CalibrationRow[]> {
  const shadow = shadowDir(m);
  process.env.EXTRA_MODELS_DIR = shadow;
  try {
    const ev = await startEvalScanning(threads, concurrency);
    try {
      if (!ev.scanning.loadedModels.includes(m.name))
        throw new Error(`${m.name} did not load in the worker pool (the log above says why)`);
      return await scoreRows(ev, m, rows);
    } finally {
      await ev.scanning.close();
    }
  } finally {
    rmSync(shadow, { recursive: true, force: true });
  }
}

process.stderr.write(
  `scoring ${all.length} rows: ${model.detector}'s published score without ${model.name} (the service logs it as not calibrated here) and ${model.name}'s raw score\n`,
);
let scored: CalibrationRow[];
try {
  scored = await scoreAll(model, all);
} catch (err) {
  fail(`scoring failed: ${(err as Error).message}`);
}

const byOrigin: Record<string, number> = {};
for (const r of scored) byOrigin[r.origin] = (byOrigin[r.origin] ?? 0) + 1;
let result: ReturnType<typeof calibrate>;
try {
  result = calibrate(scored, {
    model: model.name,
    sha256: model.sha256['model.onnx']!,
    detector: model.detector,
    fittedAt: new Date(),
    inputs: {
      model_version: model.version,
      dataset_hash: datasetHash(files),
      files: files.map((f) => path.basename(f)),
      limit: limit ?? null,
      rows: scored.length,
      rows_by_origin: byOrigin,
      events: events && {
        org_id: values.org,
        read: events.read,
        usable: events.usable,
        used: events.used,
        min_events: minEvents,
      },
    },
  });
} catch (err) {
  fail(`the fit failed: ${(err as Error).message}${limit ? ' (a larger --limit may help)' : ''}`);
}
process.stdout.write(`${result.report}\n`);
const target = path.join(model.dir, CALIBRATION_FILE);
// a weight of 0 stacks nothing: the model would cost CPU on every undecided scan and change no score's order
if (result.calibration.stack.model === 0)
  fail(
    `${target} not written: the fit gives ${model.name} no weight on these rows (it adds nothing to ${model.detector}); ` +
      'check positive_labels against config.json id2label, or label events of your traffic (--org)',
  );
if (values['dry-run']) process.stdout.write(`--dry-run: ${target} not written\n`);
else {
  writeFileSync(target, JSON.stringify(result.calibration, null, 2) + '\n');
  process.stdout.write(`wrote ${target}: the service stacks ${model.name} from its next start\n`);
}
