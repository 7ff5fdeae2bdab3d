/**
 * `npm run train:toxicity-stack [-- --dry-run]` — the sentence-encoder toxicity model and the stack
 * (issue 18). Run after `npm run train:toxicity`.
 *
 * 1. toxicity-semantic: frozen USE-lite embeddings (per-dimension max over 128-token windows, as
 *    `inference/semantic-classifier.ts` serves them) + a logistic head trained on the lexical model's
 *    training rows (`loadToxicityData`: dataset sources outside the hold-out, hard negatives, functional
 *    TRAIN rows counted `FUNCTIONAL_WEIGHT` times).
 * 2. The stack: sigmoid(bias + Σ weight · logit) over toxicity and toxicity-semantic. Candidates: the
 *    z-average of the standardised logits (standardised on stacking rows: functional TRAIN rows of another
 *    seed, new hard negatives, a seeded sample of the training sources; labels unused) and a logistic fit
 *    on the validation rows (3 numbers: a calibration; judged on 2-fold cross-fitted scores). The better
 *    validation ROC AUC ships. Its reduced form maps the lexical logit onto the stack's logit (least
 *    squares), so the same thresholds hold: it serves the fast tier and the surfaces where the encoder does
 *    not run. The auto tier's cascade defers the encoder: `upper_logit` calibrated on the stacking rows when
 *    that ends enough benign rows early, else the `below` gate on the lexical score (fitted on validation,
 *    judged cross-fitted).
 * 3. Thresholds on the stacked score (`BLOCK`, `chooseF1Thresholds`), on validation: held-out sources +
 *    functional VALIDATION rows (another author's templates) + hard negatives from EVAL templates.
 *
 * Writes `models/toxicity-semantic/` (head, card, manifest entry) and the toxicity entry's `combine`,
 * `thresholds` and `metrics.stack`, and `models/toxicity/stack.md`. Embeddings are cached in
 * `models/.cache/toxicity-semantic/`.
 */
import path from 'node:path';
import { SURFACES } from '../../engine/detector.ts';
import { normalize } from '../../engine/normalize.ts';
import { headScore } from '../../inference/logistic-head.ts';
import { modelEntry, type Thresholds } from '../../inference/manifest.ts';
import { loadSentenceEncoder, type SentenceEncoder } from '../../inference/sentence-encoder.ts';
import { loadOnnxClassifier } from '../../inference/text-classifier.ts';
import { REPO_ROOT } from '../data/datasets.ts';
import { chooseF1Thresholds } from '../metrics.ts';
import {
  chunkedScores,
  evaluateBinary,
  makeLogger,
  upsertManifestEntry,
  writeCard,
  type EvalReport,
  type Example,
  type ManifestEntry,
} from './common.ts';
import { trainHead } from './pi-semantic-head.ts';
import {
  EMBEDDING_DIM,
  pooledEmbeddings,
  SEMANTIC_WINDOWS,
  selectView,
  writeSemanticHead,
} from './semantic-features.ts';
import {
  calibrateCascade,
  calibrateGate,
  cascadeOutcome,
  crossFitted,
  crossFittedGate,
  gateOutcome,
  fitted,
  linear,
  mappedTo,
  without,
  zAveraged,
  type Linear,
  type Stack,
} from './stack-fit.ts';
import { loadToxicityData } from './toxicity-data.ts';
import { STACK_SEED, stackingRows } from './toxicity-stack-rows.ts';
import { semanticCard, stackCard, validationTable } from './toxicity-stack-card.ts';

const ID = 'toxicity-semantic';
const VERSION = '0.1.1';
const SEED = STACK_SEED;
const L2 = 1e-2;
/** functional TRAIN rows count this many times in the head's loss (they are 11 % of the rows) */
const FUNCTIONAL_WEIGHT = 3;
const INPUTS = ['toxicity', ID] as const;
const DEFER_AT = 1;
/** Surfaces where the stack runs the encoder: conversation text. Elsewhere (documents, tool I/O) the reduced stack. */
export const ENCODER_SURFACES = new Set(['user_message', 'assistant_output', 'agent_message']);
const REDUCED_SURFACES = SURFACES.filter((s) => !ENCODER_SURFACES.has(s));
/**
 * Thresholds on the stacked score (`chooseF1Thresholds` on validation + hard negatives): flag at the F1-best
 * threshold, warn at the F2-best, block where precision reaches 0.95 and FPR ≤ 1 %. The detector is judged
 * by F1 at flag; the injection models' rule (precision 0.9, FPR ≤ 2 % at flag) left toxicity recall at 0.24.
 */
const BLOCK = { precision: 0.95, max_fpr: 0.01 };
/** the share of benign stacking rows a cascade must decide without the encoder to be written */
const MIN_EARLY = 0.05;
/**
 * The `below` cascade (the lexical score gates the encoder) is written when, cross-fitted on validation, it
 * decides this share of benign rows early and loses at most 0.5 % of the stack's detections.
 */
const MIN_GATE_EARLY = 0.15;
const CACHE_DIR = path.join(REPO_ROOT, 'models/.cache/toxicity-semantic');
const log = makeLogger('toxicity-stack');
const dryRun = process.argv.includes('--dry-run');

async function main(): Promise<void> {
  const t0 = Date.now();
  const data = loadToxicityData(log);
  const stackRows = stackingRows(data.train);
  const sets = {
    train: data.train,
    stack: stackRows,
    val: data.val,
    hard: data.hardEval.map((h): Example => ({ text: h.text, label: 0, family: `hard:${h.category}` })),
  };
  let encoder: SentenceEncoder | undefined;
  const enc = async (): Promise<SentenceEncoder> => (encoder ??= await loadSentenceEncoder({ batchRows: 32 }));
  const pooling = {
    windowTokens: SEMANTIC_WINDOWS.windowTokens,
    maxWindows: SEMANTIC_WINDOWS.maxWindows,
    cacheDir: CACHE_DIR,
    log,
  };
  const x: Record<string, Float32Array> = {};
  for (const [name, rows] of Object.entries(sets))
    x[name] = await pooledEmbeddings(
      name,
      rows.map((r) => normalize(r.text).text),
      enc,
      pooling,
    );
  await encoder?.release();

  const rows = sets.train.flatMap((r, i) =>
    Array<number>(r.family.startsWith('functional:') ? FUNCTIONAL_WEIGHT : 1).fill(i),
  );
  const head = trainHead(
    selectView(x.train!, sets.train.length, 'max', rows),
    rows.map((i) => sets.train[i]!.label),
    EMBEDDING_DIM,
    { l2: L2 },
  );
  log(`head trained on ${sets.train.length} rows (${rows.length} with the functional rows weighted)`);
  const semantic = (name: keyof typeof sets): number[] => {
    const v = selectView(x[name]!, sets[name].length, 'max');
    return sets[name].map((_, i) => headScore(head, v, i * EMBEDDING_DIM));
  };
  const lexical = await loadOnnxClassifier(modelEntry('toxicity'));
  const lexicalScores = (rows: Example[]): Promise<number[]> =>
    chunkedScores(
      rows.map((r) => normalize(r.text).text),
      lexical.entry.max_chars,
      (b) => lexical.scoreBatch(b),
    );
  const cols = {} as Record<'stack' | 'val' | 'hard', number[][]>;
  for (const name of ['stack', 'val', 'hard'] as const) cols[name] = [await lexicalScores(sets[name]), semantic(name)];
  await lexical.release();

  // Candidates: the z-average of the standardised logits (standardised on the stacking rows, labels unused)
  // and a logistic fit on the validation rows (a calibration of 3 numbers; reported and thresholded on
  // 2-fold cross-fitted scores). Each reduced form maps the lexical logit onto the full stack's logit.
  const labels = stackRows.map((r) => r.label);
  const valLabels = data.val.map((e) => e.label);
  const both = [0, 1].map((k) => [...cols.val[k]!, ...cols.hard[k]!]);
  const bothLabels = [...valLabels, ...data.hardEval.map(() => 0)];
  const withReduced = (st: Linear): Stack => {
    const full = both[0]!.map((_, i) => linear(st, both, i));
    return { ...st, reduced: mappedTo(full, without(both, DEFER_AT)) };
  };
  const candidates: Record<string, Stack> = {
    'z-average': withReduced(zAveraged(cols.stack)),
    'validation-fit': withReduced(fitted(both, bothLabels)),
  };
  const n = data.val.length;
  const crossVal = crossFitted(both, bothLabels);
  const stacked = (name: string, c: number[][], reduced = false): number[] => {
    const st = candidates[name]!;
    return c[0]!.map((_, i) => (reduced ? linear(st.reduced, without(c, DEFER_AT), i) : linear(st, c, i)));
  };
  const scorers: Record<string, (c: number[][]) => number[]> = {
    toxicity: (c) => c[0]!,
    [ID]: (c) => c[1]!,
    'stack:z-average': (c) => stacked('z-average', c),
    // cross-fitted on the validation columns; the hard-negative columns are scored by the shipped fit
    'stack:validation-fit': (c) =>
      c === cols.val ? crossVal.slice(0, n) : c === cols.hard ? crossVal.slice(n) : stacked('validation-fit', c),
  };
  for (const name of Object.keys(candidates)) scorers[`stack:${name} (reduced)`] = (c) => stacked(name, c, true);
  const choose = (sc: number[], y: number[]): Thresholds => chooseF1Thresholds(sc, y, BLOCK);
  // a reduced form is served at its full stack's thresholds, so it is reported at them
  const reports: Record<string, EvalReport> = {};
  for (const [name, f] of Object.entries(scorers)) {
    const full = name.endsWith(' (reduced)') ? reports[name.slice(0, -' (reduced)'.length)] : undefined;
    reports[name] = evaluateBinary(
      data.val,
      f(cols.val),
      data.hardEval,
      f(cols.hard),
      full ? () => full.thresholds : choose,
    );
  }
  const table = validationTable(data.val, cols.val, scorers, reports);
  console.log(table);
  const pickName = Object.keys(candidates).sort(
    (a, b) => (reports[`stack:${b}`]!.overall.roc_auc ?? 0) - (reports[`stack:${a}`]!.overall.roc_auc ?? 0),
  )[0]!;
  const pick = candidates[pickName]!;
  const report = reports[`stack:${pickName}`]!;
  const round6 = (v: number): number => Number(v.toPrecision(6));
  const t = report.thresholds;
  const setup = { defer: DEFER_AT, reduced: () => false };
  const cascade = calibrateCascade(pick, cols.stack, labels, t, setup);
  const reducedReport = reports[`stack:${pickName} (reduced)`]!;
  const onVal = cascadeOutcome(
    pick,
    cols.val,
    data.val.map((e) => e.label),
    t,
    cascade.upper,
    setup,
  );
  log(`picked ${pickName}: ${JSON.stringify(pick)}; thresholds ${JSON.stringify(t)}`);
  log(`cascade (stacking rows): ${JSON.stringify(cascade)}; (validation): ${JSON.stringify(onVal)}`);
  // The `below` form, gated on the lexical score. Fitted on validation: the lexical model trained on most
  // stacking rows, so its scores there are too confident (a gate fitted there loses ~10 % on validation).
  const keep = 1 - DEFER_AT;
  const valY = data.val.map((e) => e.label);
  const tau = calibrateGate(pick, cols.val, valY, t, keep);
  const gate = {
    validation: gateOutcome(pick, cols.val, valY, t, tau, keep),
    cross_fitted: crossFittedGate(pick, cols.val, valY, t, keep),
    stacking_rows: gateOutcome(pick, cols.stack, labels, t, tau, keep),
    hard_negatives_early: gateOutcome(
      pick,
      cols.hard,
      sets.hard.map(() => 0),
      t,
      tau,
      keep,
    ).benign_early,
  };
  const gateOk =
    gate.cross_fitted.benign_early >= MIN_GATE_EARLY && gate.cross_fitted.lost <= 0.005 * gate.cross_fitted.detected;
  log(`gate (below ${tau}): ${JSON.stringify(gate)}`);
  const written =
    cascade.benign_early >= MIN_EARLY
      ? { defer: ID, upper_logit: round6(cascade.upper) }
      : gateOk
        ? { defer: ID, below: round6(tau) }
        : undefined;
  if (dryRun) return;

  const semanticReport = reports[ID]!;
  const { encoder: encoderId } = writeSemanticHead({
    id: ID,
    version: VERSION,
    head,
    labels: ['non-toxic', 'toxic'],
    // served only as an input of the toxicity stack (the toxicity entry's `combine`)
    metrics: {
      validation: 'toxicity held-out sources + functional VALIDATION rows + hard negatives (EVAL templates)',
      roc_auc: semanticReport.overall.roc_auc,
      per_source: semanticReport.per_source,
      training_rows: sets.train.length,
      l2: L2,
    },
    train: sets.train,
    seed: SEED,
  });
  writeCard(ID, semanticCard({ version: VERSION, encoder: encoderId, rows: sets.train.length, l2: L2, table }));
  const tox = modelEntry('toxicity') as ManifestEntry;
  upsertManifestEntry({
    ...tox,
    combine: {
      method: 'logistic',
      inputs: [...INPUTS],
      weights: pick.weights.map(round6),
      bias: round6(pick.bias),
      // a cascade that would end no benign scan early only adds a step: the auto tier then runs both models
      ...(written && { cascade: written }),
      reduced: {
        surfaces: [...REDUCED_SURFACES],
        drop: ID,
        weights: pick.reduced.weights.map(round6),
        bias: round6(pick.reduced.bias),
      },
    },
    thresholds: t,
    metrics: {
      ...tox.metrics,
      stack: {
        trainer: 'npm run train:toxicity-stack',
        candidate: pickName,
        candidates,
        inputs: [`toxicity@${tox.version}`, `${ID}@${VERSION}`],
        stacking_rows: stackRows.length,
        seed: SEED,
        overall: report.overall,
        reduced: reducedReport.overall,
        per_source: report.per_source,
        cascade: { stacking_rows: cascade, validation: onVal, gate },
        hard_negatives: report.hard_negatives,
      },
    },
  });
  writeCard(
    'toxicity',
    stackCard({
      inputs: [`toxicity@${tox.version}`, `${ID}@${VERSION}`],
      candidates,
      picked: pickName,
      reducedSurfaces: REDUCED_SURFACES,
      thresholds: t,
      table,
      stackingRows: stackRows.length,
      cascade: cascade.benign_early >= MIN_EARLY ? { stacking: cascade, validation: onVal } : null,
      gate: written && 'below' in written ? gate : null,
    }),
    'stack.md',
  );
  log(`wrote ${ID} and the toxicity stack in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

await main();
