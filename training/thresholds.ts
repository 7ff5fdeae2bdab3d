/**
 * `npm run train:thresholds [-- --dry-run] [--gate-only] [--threads N] [--concurrency 64]`
 *
 * Fixes the calibrated detectors' thresholds at stated benign false-alarm rates (warn 5 %, flag 2 %,
 * block 0.5 %), per scoring form (`fast`, `accurate`) and surface group (`prompt`, `document`), and
 * writes them as the manifest entries' `calibration` (`engine/detectors/calibration.ts` maps raw scores
 * onto the published levels with them). Run it after any retraining: a trainer rewrites its entry
 * without one.
 *
 * The benign pool, per detector and group, comes from several origins, each weighing the same (the rate
 * is the mean of the origins' rates, so the largest origin does not set it alone):
 * - `public`: the benign rows of the public validation set (`$DATASETS_DIR/validation/`; thresholds are
 *   what that set is for; nothing of it is trained on);
 * - `team-pool`: benign traffic the team wrote for this (`training/data/written/eval/benign-pool.jsonl`:
 *   chat, code, documents, tool output and MCP descriptions in many languages; never trained on);
 * - `team-twins` (prompt injection): the benign twins of the threat families' VALIDATION generators and
 *   the hard negatives of the EVAL templates (`models/.eval/`, written by `npm run eval:sets`);
 * - `team-functional` (toxicity): the benign functional cases (counter-speech, negated and quoted hate,
 *   reclaimed terms, homonyms) of the functional VALIDATION generator.
 *
 * Every row is scanned through the service's own scan path with raw scores (`rawScores`): prompt-group
 * rows on `user_message`, document-group rows on `document`. On prompt surfaces the prompt-injection
 * detector also folds in the adversarial-suffix scorer at the published levels, so the prompt group's
 * anchors are chosen for the union of the two alarms.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scanText, startEvalScanning } from './eval-scan.ts';
import { loadCharLm } from '../inference/char-lm.ts';
import { modelEntry, readManifest, type Calibration, type ModelEntry, type Thresholds } from '../inference/manifest.ts';
import type { Surface, SurfaceGroup, Tier } from '../engine/detector.ts';
import { SURFACE_GROUPS } from '../engine/detector.ts';
import { CALIBRATED_LEVELS } from '../engine/detectors/calibration.ts';
import { calibrate as suffixLevel } from '../engine/detectors/adversarial-suffix.ts';
import { normalize } from '../engine/normalize.ts';
import {
  compileIntentRules,
  levelOn,
  levelScore,
  loadIntentLexicon,
  loadToxicLexicon,
  TOXICITY_RULES,
} from '../engine/detectors/intent-rules.ts';
import { datasetsDir, readJsonl } from './data/datasets.ts';
import { upsertManifestEntry } from './trainers/common.ts';
import { clampedLogit } from '../inference/logistic-head.ts';
import { anchorsAtRates, originRates, TARGET_FPR, type PoolRow } from './threshold-fit.ts';
import { crossFitGate, earlyShare, fitGate, gateLoss, type GateRow } from './toxicity-gate.ts';

export { TARGET_FPR };

const { values } = parseArgs({
  options: {
    'dry-run': { type: 'boolean', default: false },
    // refit only the toxicity gate, on the manifest's calibration as it stands
    'gate-only': { type: 'boolean', default: false },
    threads: { type: 'string' },
    concurrency: { type: 'string', default: '64' },
  },
  strict: true,
});

const ROOT = path.resolve(import.meta.dirname, '..');
const EVAL_DIR = path.join(ROOT, 'models', '.eval');
const WRITTEN_EVAL = path.join(ROOT, 'training', 'data', 'written', 'eval');
const GROUP_SURFACE: Record<SurfaceGroup, Surface> = { prompt: 'user_message', document: 'document' };

interface Row {
  text: string;
  label?: number;
  family?: string;
  surface_group?: string;
}
const read = (file: string): Row[] => (existsSync(file) ? readJsonl<Row>(file) : []);
const benign = (rows: Row[]): Row[] => rows.filter((r) => r.label === 0 && typeof r.text === 'string' && r.text);

type Pool = { text: string; group: SurfaceGroup; origin: string }[];

function injectionPool(): Pool {
  const pool: Pool = [];
  for (const r of benign(read(path.join(datasetsDir(), 'validation', 'injection_public.jsonl'))))
    pool.push({ text: r.text, group: r.family === 'indirect' ? 'document' : 'prompt', origin: 'public' });
  for (const r of benign(read(path.join(WRITTEN_EVAL, 'benign-pool.jsonl'))))
    pool.push({ text: r.text, group: r.surface_group === 'document' ? 'document' : 'prompt', origin: 'team-pool' });
  for (const f of ['instruction_override', 'jailbreak_roleplay', 'multilingual', 'indirect_instruction'])
    for (const r of benign(read(path.join(EVAL_DIR, `family-${f}.jsonl`))))
      pool.push({ text: r.text, group: f === 'indirect_instruction' ? 'document' : 'prompt', origin: 'team-twins' });
  for (const r of benign(read(path.join(EVAL_DIR, 'injection.jsonl'))))
    if (r.family?.startsWith('generated/hard-negatives'))
      pool.push({ text: r.text, group: 'prompt', origin: 'team-twins' });
  return pool;
}

function toxicityPool(): Pool {
  const pool: Pool = [];
  for (const r of benign(read(path.join(datasetsDir(), 'validation', 'toxicity_public.jsonl'))))
    pool.push({ text: r.text, group: 'prompt', origin: 'public' });
  for (const r of benign(read(path.join(EVAL_DIR, 'toxicity-functional.jsonl'))))
    pool.push({ text: r.text, group: 'prompt', origin: 'team-functional' });
  for (const r of benign(read(path.join(WRITTEN_EVAL, 'benign-pool.jsonl'))))
    pool.push({ text: r.text, group: r.surface_group === 'document' ? 'document' : 'prompt', origin: 'team-pool' });
  // documents that talk about attacks and hate are this group's hard cases; the public indirect twins are documents
  for (const r of benign(read(path.join(datasetsDir(), 'validation', 'injection_public.jsonl'))))
    if (r.family === 'indirect') pool.push({ text: r.text, group: 'document', origin: 'public' });
  return pool;
}

const threads = values.threads === undefined ? undefined : Number(values.threads);
const concurrency = Number(values.concurrency);
const { scanning } = await startEvalScanning(threads ?? Number(process.env.WORKER_THREADS ?? 2), concurrency, {
  rawScores: true,
});

async function rawScores(detector: string, tier: Tier, pool: Pool): Promise<number[]> {
  const out = new Array<number>(pool.length).fill(0);
  let next = 0;
  let done = 0;
  const started = Date.now();
  async function worker(): Promise<void> {
    for (let i = next++; i < pool.length; i = next++) {
      const p = pool[i]!;
      out[i] = (await scanText(scanning, detector, tier, GROUP_SURFACE[p.group], p.text))?.score ?? 0;
      if (++done % 200 === 0)
        process.stderr.write(
          `\r${detector} ${tier}: ${done}/${pool.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  process.stderr.write(
    `\r${detector} ${tier}: ${pool.length} rows in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  return out;
}

/**
 * The level the detector's other families give each row at the published levels, whatever the models
 * say: the adversarial-suffix scorer (prompt surfaces) and the intent rules (every surface).
 */
function otherFamilyLevels(pool: Pool): number[] {
  const entry = readManifest(process.env.MODELS_DIR).models.find((m) => m.id === 'pi-suffix');
  const lm = entry?.thresholds ? loadCharLm(entry, process.env.MODELS_DIR) : null;
  const rules = compileIntentRules(loadIntentLexicon());
  return pool.map((p) => {
    const text = normalize(p.text);
    const suffix =
      lm && p.group === 'prompt' ? suffixLevel(lm.score(text.original).bits, entry!.thresholds!, CALIBRATED_LEVELS) : 0;
    const hit = rules.match(text.text);
    const level = hit && levelOn(hit.level, p.group);
    return Math.max(suffix, level ? levelScore(level, CALIBRATED_LEVELS) : 0);
  });
}

/** The toxicity term rules' level of each row at the published levels. */
function termLevels(pool: Pool): number[] {
  const rules = compileIntentRules(loadToxicLexicon(), TOXICITY_RULES);
  return pool.map((p) => {
    const hit = rules.match(normalize(p.text).text);
    return hit ? levelScore(hit.level, CALIBRATED_LEVELS) : 0;
  });
}

/** The share of the toxic rows above the calibrated warn the toxicity gate may end without the encoder. */
const GATE_LOSS = 0.015;

/**
 * The auto tier's toxicity gate (`combine.cascade.below`, on the lexical model's score; `toxicity-gate.ts`):
 * the encoder runs only above it. Fitted on the labelled toxicity rows (public validation and functional,
 * both classes, prompt surfaces), scored through the service's own path, to lose at most GATE_LOSS of the
 * toxic rows the full stack puts above the calibrated warn anchor; reported with its cross-fitted loss at
 * warn and at flag.
 */
async function fitToxicityGate(): Promise<void> {
  const entry = fitted.get('toxicity') ?? modelEntry('toxicity', process.env.MODELS_DIR);
  const c = entry.combine;
  const anchors = entry.calibration?.forms.accurate?.prompt;
  if (c?.method !== 'logistic' || !c.cascade || !('below' in c.cascade) || !c.reduced || !anchors) return;
  const labelled = [
    ...read(path.join(datasetsDir(), 'validation', 'toxicity_public.jsonl')),
    ...read(path.join(EVAL_DIR, 'toxicity-functional.jsonl')),
  ].filter((r) => typeof r.text === 'string' && r.text && (r.label === 0 || r.label === 1));
  const pool: Pool = labelled.map((r) => ({ text: r.text, group: 'prompt', origin: 'labelled' }));
  const reduced = await rawScores('toxicity', 'fast', pool);
  const full = await rawScores('toxicity', 'accurate', pool);
  // the reduced stack is sigmoid(bias + w · logit(lexical)): its inverse gives the lexical score
  const [w] = c.reduced.weights;
  const rows: GateRow[] = labelled.map((r, i) => ({
    lexical: 1 / (1 + Math.exp(-(clampedLogit(reduced[i]!) - c.reduced!.bias) / w!)),
    full: full[i]!,
    label: r.label!,
  }));
  const levels = { warn: anchors.warn_above, flag: anchors.flag_above };
  const below = fitGate(rows, levels.warn, GATE_LOSS);
  const cross = crossFitGate(rows, levels, GATE_LOSS);
  const lost = (o: { detected: number; lost: number }) =>
    `${o.lost} of ${o.detected} (${((100 * o.lost) / Math.max(1, o.detected)).toFixed(2)} %)`;
  const benign = rows.filter((r) => r.label === 0);
  report.push(
    `\ntoxicity auto gate (cascade.below): ${c.cascade.below} → ${below}, fitted on ${rows.length} labelled rows ` +
      `(${(100 * earlyShare(benign, below)).toFixed(1)} % of the benign ones end without the encoder); toxic rows lost ` +
      `at warn ${lost(gateLoss(rows, below, levels.warn))}, at flag ${lost(gateLoss(rows, below, levels.flag))}; ` +
      `cross-fitted (20 seeded halvings; gates ${cross.gates[0]}–${cross.gates.at(-1)}): at warn ${lost(cross.warn)}, ` +
      `at flag ${lost(cross.flag)}`,
  );
  fitted.set('toxicity', { ...entry, combine: { ...c, cascade: { ...c.cascade, below } } });
}

const report: string[] = [];
const fitted = new Map<string, ModelEntry>();

async function fit(detector: string, pool: Pool, forms: { form: 'fast' | 'accurate'; tier: Tier; entry: string }[]) {
  const floor = detector === 'prompt_injection' ? otherFamilyLevels(pool) : termLevels(pool);
  for (const { form, tier, entry: id } of forms) {
    const scores = await rawScores(detector, tier, pool);
    const groups: Record<string, Thresholds> = {};
    const counts: Record<string, Record<string, number>> = {};
    for (const group of SURFACE_GROUPS) {
      const rows: PoolRow[] = [];
      pool.forEach((p, i) => {
        if (p.group === group) rows.push({ score: scores[i]!, origin: p.origin, floor: floor[i]! });
      });
      if (rows.length === 0) throw new Error(`${detector}: no benign rows for surface group ${group}`);
      const anchors = anchorsAtRates(rows, TARGET_FPR, CALIBRATED_LEVELS);
      groups[group] = anchors;
      counts[group] = Object.fromEntries(
        [...new Set(rows.map((r) => r.origin))].map((o) => [o, rows.filter((r) => r.origin === o).length]),
      );
      const rates = originRates(rows, anchors, CALIBRATED_LEVELS);
      report.push(
        `| ${detector} | ${form} | ${group} | ${anchors.warn_above.toFixed(4)} / ${anchors.flag_above.toFixed(4)} / ${anchors.block_above.toFixed(4)} | ` +
          Object.entries(rates)
            .map(
              ([o, r]) =>
                `${o} (${counts[group]![o]}): ${(100 * r.warn_above).toFixed(1)} / ${(100 * r.flag_above).toFixed(1)} / ${(100 * r.block_above).toFixed(2)}`,
            )
            .join('; ') +
          ' |',
      );
    }
    const base = fitted.get(id) ?? modelEntry(id, process.env.MODELS_DIR);
    const prev = base.calibration;
    const calibration: Calibration = {
      fpr: TARGET_FPR,
      forms: { ...(prev?.forms ?? {}), [form]: groups },
      pool: { ...(prev?.pool ?? {}), [form]: counts },
    };
    fitted.set(id, { ...base, calibration });
  }
}

if (!values['gate-only']) {
  await fit('prompt_injection', injectionPool(), [
    { form: 'fast', tier: 'fast', entry: 'pi-fast' },
    { form: 'accurate', tier: 'accurate', entry: 'pi-accurate' },
  ]);
  await fit('toxicity', toxicityPool(), [
    { form: 'fast', tier: 'fast', entry: 'toxicity' },
    { form: 'accurate', tier: 'accurate', entry: 'toxicity' },
  ]);
}
await fitToxicityGate();
await scanning.close();

process.stdout.write(
  `Raw-score anchors (warn / flag / block) and each origin's benign FPR % at them (warn / flag / block), targets ${100 * TARGET_FPR.warn_above} / ${100 * TARGET_FPR.flag_above} / ${100 * TARGET_FPR.block_above}:\n\n` +
    '| detector | form | group | anchors | benign FPR % by origin |\n|---|---|---|---|---|\n' +
    report.join('\n') +
    '\n',
);
if (!values['dry-run']) {
  for (const e of fitted.values()) upsertManifestEntry(e as Parameters<typeof upsertManifestEntry>[0]);
  process.stdout.write(`wrote calibration of ${[...fitted.keys()].join(', ')} to models/manifest.json\n`);
}
