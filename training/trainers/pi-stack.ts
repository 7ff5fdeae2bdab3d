/**
 * `npm run train:pi-stack [-- --dry-run]` — the accurate tier's stacker: a logistic regression over the
 * logits of pi-accurate, pi-fast and pi-semantic (each the max over its own windows, scored by the serving
 * loaders), written as the `combine` of the `pi-accurate` manifest entry with thresholds calibrated on the
 * combined score. Run after the three models are trained.
 *
 * Stacking rows are neither the models' training rows nor any validation row: the threat-family TRAIN
 * generators with another seed (new slot fillings of training templates: the base models score them too
 * well, so two stackers are compared) and a seeded sample of the training sources of the shared datasets.
 * Candidates: the fitted stacker, and the equal-weight average of the standardised logits (no labels used);
 * the one with the best worst family (recall at FPR 0.05 on `models/.eval/families.jsonl`, VALIDATION
 * generators + whole-source hold-out) ships. Thresholds: the held-out sources + hard negatives, as every
 * injection model (`evaluateBinary`). The auto tier's cascade defers pi-semantic; its `upper_logit` is
 * calibrated on the stacking rows (`calibrateCascade`) and its outcome reported on the validation rows.
 * Writes the card `models/pi-accurate/stack.md`. Scores are cached in `models/.cache/pi-stack/` by model
 * sha256 and text.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SUFFIX_SURFACES } from '../../engine/detectors/adversarial-suffix.ts';
import { SURFACES, type Surface } from '../../engine/detector.ts';
import { normalize } from '../../engine/normalize.ts';
import type { TextClassifier } from '../../inference/classifier.ts';
import { loadLinearModel } from '../../inference/linear-model.ts';
import { modelEntry, type ModelEntry } from '../../inference/manifest.ts';
import { loadOnnxClassifier } from '../../inference/text-classifier.ts';
import { readJsonl, REPO_ROOT, sha256Hex } from '../data/datasets.ts';
import { familyTrain, THREAT_FAMILIES } from '../data/families/index.ts';
import { familyStats, worstFamily, type FamilyStats } from '../eval-metrics.ts';
import { mulberry32, shuffleInPlace } from '../prng.ts';
import {
  chunkedScores,
  evaluateBinary,
  makeLogger,
  upsertManifestEntry,
  writeCard,
  type Example,
  type ManifestEntry,
} from './common.ts';
import { loadInjectionData } from './injection-data.ts';
import { stackCard } from './pi-stack-card.ts';
import {
  calibrateCascade,
  cascadeOutcome,
  fitted,
  linear,
  without,
  zAveraged,
  type CascadeSetup,
  type Stack,
} from './stack-fit.ts';

const SEED = 2525;
const FAMILY_ROWS = 800;
const DATASET_ROWS = 3000;
const INPUTS = ['pi-accurate', 'pi-fast', 'pi-semantic'] as const;
/** the input the auto tier defers (the sentence encoder: the costly one) */
const DEFER = 'pi-semantic';
const CACHE_DIR = path.join(REPO_ROOT, 'models/.cache/pi-stack');
const EVAL_FILE = path.join(REPO_ROOT, 'models/.eval/families.jsonl');
const log = makeLogger('pi-stack');
const dryRun = process.argv.includes('--dry-run');

interface Row {
  text: string;
  label: 0 | 1;
  family: string;
  surface?: string;
}

/** Surfaces where the stack runs without pi-semantic (the reduced stack): all but the prompt-like ones. */
const REDUCED_SURFACES = SURFACES.filter((x) => !SUFFIX_SURFACES.has(x));
const isReduced = (r: Row | undefined): boolean =>
  r?.surface !== undefined && !SUFFIX_SURFACES.has(r.surface as Surface);
const DEFER_AT = INPUTS.indexOf(DEFER);
const withoutDeferred = <T>(cols: T[]): T[] => without(cols, DEFER_AT);

type Scorer = (texts: string[]) => Promise<number[]>;

async function scorers(): Promise<{ score: Record<string, Scorer>; entries: ModelEntry[]; release(): Promise<void> }> {
  const entries = INPUTS.map((id) => modelEntry(id));
  const fast = loadLinearModel(entries[1]!);
  const pool: TextClassifier[] = [await loadOnnxClassifier(entries[0]!), await loadOnnxClassifier(entries[2]!)];
  const chunked = (e: ModelEntry, f: (b: string[]) => Promise<number[]> | number[]): Scorer => {
    return (texts) => chunkedScores(texts, e.max_chars, f);
  };
  return {
    entries,
    score: {
      'pi-accurate': chunked(entries[0]!, (b) => pool[0]!.scoreBatch(b)),
      'pi-fast': chunked(entries[1]!, (b) => b.map((t) => fast.score(t))),
      'pi-semantic': chunked(entries[2]!, (b) => pool[1]!.scoreBatch(b)),
    },
    release: async () => void (await Promise.all(pool.map((c) => c.release()))),
  };
}

/** Score columns [input][row] of `texts`, cached by the model's sha256 and the texts. */
async function columns(name: string, texts: string[], s: Awaited<ReturnType<typeof scorers>>): Promise<number[][]> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const out: number[][] = [];
  for (const e of s.entries) {
    const file = path.join(
      CACHE_DIR,
      `${name}-${e.id}-${sha256Hex(`${e.sha256}\0${texts.join('\0')}`).slice(0, 16)}.json`,
    );
    if (existsSync(file)) {
      out.push(JSON.parse(readFileSync(file, 'utf8')) as number[]);
      continue;
    }
    const t0 = Date.now();
    const col = await s.score[e.id]!(texts);
    writeFileSync(file, JSON.stringify(col));
    log(`${name}: ${e.id} scored ${texts.length} texts in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    out.push(col);
  }
  return out;
}

const combine = (st: Stack, cols: number[][], i: number, row?: Row): number =>
  isReduced(row) ? linear(st.reduced, withoutDeferred(cols), i) : linear(st, cols, i);
const combined = (st: Stack, cols: number[][], rows?: readonly Row[]): number[] =>
  cols[0]!.map((_, i) => combine(st, cols, i, rows?.[i]));

function stackingRows(train: readonly Example[]): Row[] {
  const rng = mulberry32(SEED);
  const fam = THREAT_FAMILIES.flatMap((f) =>
    familyTrain(f, FAMILY_ROWS, SEED + 1000 * THREAT_FAMILIES.indexOf(f)).map((r) => ({
      text: normalize(r.text).text,
      label: r.label,
      family: `stack:${f}`,
      ...(r.surface ? { surface: r.surface } : {}),
    })),
  );
  const sources = shuffleInPlace(
    train.filter((e) => !e.family.startsWith('generated/')),
    rng,
  )
    .slice(0, DATASET_ROWS)
    .map((e): Row => ({ text: e.text, label: e.label === 1 ? 1 : 0, family: e.family }));
  return [...fam, ...sources];
}

const cascadeSetup = (rows: readonly Row[]): CascadeSetup => ({ defer: DEFER_AT, reduced: (i) => isReduced(rows[i]) });

const f3 = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

async function main(): Promise<void> {
  if (!existsSync(EVAL_FILE)) throw new Error(`${EVAL_FILE} is missing: run npm run eval:sets first`);
  const data = loadInjectionData(log);
  const stackRows = stackingRows(data.train);
  // the suffix family is pi-suffix's (folded in by the detector after the stack), not the stack's
  const evalRows = readJsonl<Row>(EVAL_FILE)
    .filter((r) => r.family !== 'adversarial_suffix')
    .map((r) => ({ ...r, text: normalize(r.text).text }));
  log(`stacking rows ${stackRows.length}, eval rows ${evalRows.length}, threshold rows ${data.val.length}`);
  const s = await scorers();
  const xs = await columns(
    'stack',
    stackRows.map((r) => r.text),
    s,
  );
  const xe = await columns(
    'eval',
    evalRows.map((r) => r.text),
    s,
  );
  const xv = await columns(
    'val',
    data.val.map((e) => e.text),
    s,
  );
  const xh = await columns(
    'hard',
    data.hardEval.map((h) => h.text),
    s,
  );
  await s.release();

  const labels = stackRows.map((r) => r.label);
  const candidates: Record<string, Stack> = {
    fitted: { ...fitted(xs, labels), reduced: fitted(withoutDeferred(xs), labels) },
    'z-average': { ...zAveraged(xs), reduced: zAveraged(withoutDeferred(xs)) },
  };
  const table: Record<string, FamilyStats[]> = {};
  const report = (name: string, scores: number[]): void => {
    table[name] = familyStats(
      evalRows.map((r, i) => ({ score: scores[i]!, detected: false, label: r.label, family: r.family })),
    ).filter((f) => f.positives > 0 && f.negatives > 0);
  };
  INPUTS.forEach((id, k) => report(id, xe[k]!));
  report(
    'mean(pi-accurate, pi-fast)',
    xe[0]!.map((a, i) => (a + xe[1]![i]!) / 2),
  );
  for (const [name, st] of Object.entries(candidates)) report(name, combined(st, xe, evalRows));
  const lines = ['| scorer | ' + table['pi-accurate']!.map((f) => f.family).join(' | ') + ' | worst |'];
  for (const [name, stats] of Object.entries(table)) {
    const worst = worstFamily(stats);
    lines.push(
      `| ${name} | ${stats.map((f) => `${f3(f.recall_at_fpr_05)} / ${f3(f.roc_auc)}`).join(' | ')} | ${worst?.family} ${f3(worst?.recall_at_fpr_05 ?? null)} |`,
    );
  }
  console.log(`recall @ FPR 0.05 / ROC AUC per family (validation):\n${lines.join('\n')}`);
  const pickName = Object.keys(candidates).sort(
    (a, b) => (worstFamily(table[b]!)?.recall_at_fpr_05 ?? 0) - (worstFamily(table[a]!)?.recall_at_fpr_05 ?? 0),
  )[0]!;
  const pick = candidates[pickName]!;
  const thresholdReport = evaluateBinary(data.val, combined(pick, xv), data.hardEval, combined(pick, xh));
  log(`picked ${pickName}: ${JSON.stringify(pick)}; thresholds ${JSON.stringify(thresholdReport.thresholds)}`);
  const t = thresholdReport.thresholds;
  const cascade = calibrateCascade(pick, xs, labels, t, cascadeSetup(stackRows));
  const onEval = cascadeOutcome(
    pick,
    xe,
    evalRows.map((r) => r.label),
    t,
    cascade.upper,
    cascadeSetup(evalRows),
  );
  log(`cascade (stacking rows): ${JSON.stringify(cascade)}`);
  log(`cascade (validation): ${JSON.stringify(onEval)}`);
  if (dryRun) return;
  const accurate = modelEntry('pi-accurate') as ManifestEntry;
  const round6 = (x: number): number => Number(x.toPrecision(6));
  upsertManifestEntry({
    ...accurate,
    combine: {
      method: 'logistic',
      inputs: [...INPUTS],
      weights: pick.weights.map(round6),
      bias: round6(pick.bias),
      cascade: { defer: DEFER, upper_logit: round6(cascade.upper) },
      reduced: {
        surfaces: [...REDUCED_SURFACES],
        drop: DEFER,
        weights: pick.reduced.weights.map(round6),
        bias: round6(pick.reduced.bias),
      },
    },
    thresholds: thresholdReport.thresholds,
    metrics: {
      ...accurate.metrics,
      stack: {
        trainer: 'npm run train:pi-stack',
        candidate: pickName,
        candidates,
        inputs: s.entries.map((e) => `${e.id}@${e.version}`),
        stacking_rows: stackRows.length,
        seed: SEED,
        per_family: table[pickName],
        overall: thresholdReport.overall,
        cascade: { stacking_rows: cascade, validation: onEval },
        hard_negatives: thresholdReport.hard_negatives,
      },
    },
  });
  const o = thresholdReport.overall;
  writeCard(
    'pi-accurate',
    stackCard({
      inputs: s.entries.map((e) => `${e.id}@${e.version}`),
      candidates,
      reducedSurfaces: REDUCED_SURFACES,
      picked: pickName,
      table: [lines[0]!, `|---|${table['pi-accurate']!.map(() => '---|').join('')}---|`, ...lines.slice(1)],
      thresholds: t,
      overall: { recall: o.recall, fpr: o.fpr, roc_auc: o.roc_auc },
      stackingRows: stackRows.length,
      defer: DEFER,
      cascade: { stacking: cascade, validation: onEval },
    }),
    'stack.md',
  );
  log('wrote the pi-accurate manifest entry (combine, thresholds, metrics.stack) and models/pi-accurate/stack.md');
}

await main();
