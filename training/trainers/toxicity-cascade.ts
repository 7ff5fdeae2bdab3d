/**
 * `node --import tsx training/trainers/toxicity-cascade.ts` — analysis only (writes nothing but the
 * embeddings cache): can the auto tier's toxicity stack skip the sentence encoder on benign conversation?
 * Form "lexical gate": defer the encoder only when the lexical score exceeds τ; otherwise decide with the
 * reduced (lexical) stack. τ is chosen on the stacking rows (lost ≤ bound of the stack's detections) and
 * judged on the validation rows. Scores the shipped heads (no training): toxicity@manifest and
 * toxicity-semantic's head.json on cached USE-lite embeddings.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalize } from '../../engine/normalize.ts';
import { clampedLogit, headScore, parseHead, sigmoid } from '../../inference/logistic-head.ts';
import { MODELS_DIR, modelEntry } from '../../inference/manifest.ts';
import { loadSentenceEncoder, type SentenceEncoder } from '../../inference/sentence-encoder.ts';
import { loadOnnxClassifier } from '../../inference/text-classifier.ts';
import { REPO_ROOT } from '../data/datasets.ts';
import { chunkedScores, makeLogger, type Example } from './common.ts';
import { EMBEDDING_DIM, pooledEmbeddings, SEMANTIC_WINDOWS, selectView } from './semantic-features.ts';
import { calibrateGate, crossFittedGate, gateOutcome } from './stack-fit.ts';
import { stackingRows } from './toxicity-stack-rows.ts';
import { loadToxicityData } from './toxicity-data.ts';

const log = makeLogger('toxicity-cascade');
const CACHE_DIR = path.join(REPO_ROOT, 'models/.cache/toxicity-semantic');
const extra = process.argv.slice(2).find((a) => a.startsWith('--texts='));

async function main(): Promise<void> {
  const data = loadToxicityData(log);
  const sets: Record<string, Example[]> = {
    stack: stackingRows(data.train),
    val: data.val,
    hard: data.hardEval.map((h): Example => ({ text: h.text, label: 0, family: `hard:${h.category}` })),
  };
  if (extra) {
    const texts = JSON.parse(readFileSync(extra.slice('--texts='.length), 'utf8')) as string[];
    sets.extra = texts.map((text) => ({ text, label: 0, family: 'extra' }));
  }
  let encoder: SentenceEncoder | undefined;
  const enc = async (): Promise<SentenceEncoder> => (encoder ??= await loadSentenceEncoder({ batchRows: 32 }));
  const pooling = { ...SEMANTIC_WINDOWS, cacheDir: CACHE_DIR, log };
  const head = parseHead(readFileSync(path.join(MODELS_DIR, 'toxicity-semantic', 'head.json'), 'utf8'));
  const lexical = await loadOnnxClassifier(modelEntry('toxicity'));
  const cols: Record<string, [number[], number[]]> = {};
  for (const [name, rows] of Object.entries(sets)) {
    const texts = rows.map((r) => normalize(r.text).text);
    const x = selectView(await pooledEmbeddings(name, texts, enc, pooling), rows.length, 'max');
    const sem = rows.map((_, i) => headScore(head, x, i * EMBEDDING_DIM));
    const lex = await chunkedScores(texts, lexical.entry.max_chars, (b) => lexical.scoreBatch(b));
    cols[name] = [lex, sem];
  }
  await encoder?.release();
  await lexical.release();

  const tox = modelEntry('toxicity');
  const c = tox.combine;
  const t = tox.thresholds!;
  if (c?.method !== 'logistic' || !c.reduced) throw new Error('toxicity has no logistic combine');
  const r = c.reduced;
  const full = (lx: number, sm: number): number =>
    sigmoid(c.bias + c.weights[0]! * clampedLogit(lx) + c.weights[1]! * clampedLogit(sm));
  const reduced = (lx: number): number => sigmoid(r.bias + r.weights[0]! * clampedLogit(lx));

  /** outcome of gate τ on a set: benign rows decided early, stack detections lost, false flags added */
  const outcome = (name: string, tau: number, fam?: (f: string) => boolean, rows?: (i: number) => boolean) => {
    const [lex, sem] = cols[name]!;
    let benign = 0;
    let early = 0;
    let detected = 0;
    let lost = 0;
    let newFlags = 0;
    sets[name]!.forEach((e, i) => {
      if ((fam && !fam(e.family)) || (rows && !rows(i))) return;
      const gated = lex[i]! <= tau;
      const sFull = full(lex[i]!, sem[i]!);
      const sServed = gated ? reduced(lex[i]!) : sFull;
      if (e.label === 0) {
        benign++;
        if (gated) early++;
        if (sServed > t.flag_above && !(sFull > t.flag_above)) newFlags++;
      } else if (sFull > t.flag_above) {
        detected++;
        if (gated) lost++; // conservative: the gate only ever allows (τ ≤ TAU_MAX)
      }
    });
    return {
      benign,
      early: early / Math.max(1, benign),
      detected,
      lost,
      lostShare: lost / Math.max(1, detected),
      newFlags,
    };
  };
  // below the gate the reduced stack must stay at or below warn: τ ≤ TAU_MAX
  const TAU_MAX = sigmoid((Math.log(t.warn_above / (1 - t.warn_above)) - r.bias) / r.weights[0]!);
  /** the highest τ (a lexical score on the set, ≤ TAU_MAX) whose lost share stays within `bound` */
  const choose = (name: string, bound: number, rows?: (i: number) => boolean): number => {
    const taus = [...new Set(cols[name]![0].filter((x, i) => x <= TAU_MAX && (!rows || rows(i))))].sort(
      (a, b) => a - b,
    );
    let lo = 0;
    let hi = taus.length - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (outcome(name, taus[mid]!, undefined, rows).lostShare <= bound) [best, lo] = [taus[mid]!, mid + 1];
      else hi = mid - 1;
    }
    return best;
  };
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  console.log(`thresholds ${JSON.stringify(t)}; reduced(τ) is the score served below the gate`);
  console.log(
    '| bound | τ (lexical) | reduced(τ) | stacking: benign early | lost | validation: benign early | lost / detected | new flags | hard negatives early |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const picked: Record<string, number> = {};
  for (const bound of [0.005, 0.01, 0.02, 0.05]) {
    const tau = choose('stack', bound);
    picked[bound] = tau;
    const s = outcome('stack', tau);
    const v = outcome('val', tau);
    const h = outcome('hard', tau);
    console.log(
      `| ${pct(bound)} | ${tau.toPrecision(4)} | ${reduced(tau).toFixed(4)} | ${pct(s.early)} of ${s.benign} | ${s.lost} / ${s.detected} | ${pct(v.early)} of ${v.benign} | ${v.lost} / ${v.detected} (${pct(v.lostShare)}) | ${v.newFlags} | ${pct(h.early)} |`,
    );
  }
  // the validation-optimal gate (an upper bound on what any τ fit elsewhere could reach)
  const vTau = choose('val', 0.005);
  const vo = outcome('val', vTau);
  console.log(
    `validation-fit τ at 0.5 %: ${vTau.toPrecision(4)} → benign early ${pct(vo.early)}, lost ${vo.lost} / ${vo.detected}`,
  );
  const families = [...new Set(sets.val!.map((e) => e.family))].sort();
  console.log(
    `\nper validation family at τ(0.5 %) = ${picked[0.005]!.toPrecision(4)} / τ(2 %) = ${picked[0.02]!.toPrecision(4)}`,
  );
  console.log('| family | benign | early (0.5 %) | detected | lost (0.5 %) | early (2 %) | lost (2 %) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const f of families) {
    const a = outcome('val', picked[0.005]!, (x) => x === f);
    const b = outcome('val', picked[0.02]!, (x) => x === f);
    console.log(`| ${f} | ${a.benign} | ${pct(a.early)} | ${a.detected} | ${a.lost} | ${pct(b.early)} | ${b.lost} |`);
  }
  if (cols.extra) {
    for (const bound of [0.005, 0.01, 0.02]) {
      const e = outcome('extra', picked[bound]!);
      console.log(`extra texts (${e.benign}): decided early at τ(${pct(bound)}): ${pct(e.early)}`);
    }
    const lx = [...cols.extra[0]].sort((a, b) => a - b);
    console.log(
      `extra lexical score quantiles 10/50/90 %: ${[0.1, 0.5, 0.9].map((q) => lx[Math.floor(q * lx.length)]!.toFixed(4)).join(' ')}`,
    );
  }
  console.log(`TAU_MAX ${TAU_MAX.toPrecision(4)}`);
  // honest τ fit on validation: 2-fold by index parity, and leave-one-group-out
  for (const bound of [0.005, 0.01, 0.02]) {
    let early = 0;
    let benign = 0;
    let lost = 0;
    let detected = 0;
    const taus: string[] = [];
    for (const p of [0, 1]) {
      const tau = choose('val', bound, (i) => i % 2 === p);
      taus.push(tau.toPrecision(3));
      const o = outcome('val', tau, undefined, (i) => i % 2 !== p);
      early += o.early * o.benign;
      benign += o.benign;
      lost += o.lost;
      detected += o.detected;
    }
    const all = choose('val', bound);
    const m = outcome('extra' in cols ? 'extra' : 'val', all);
    console.log(
      `2-fold on validation, bound ${pct(bound)}: τ ${taus.join(', ')} → benign early ${pct(early / benign)} of ${benign}, lost ${lost} / ${detected} (${pct(lost / detected)}); τ on all validation ${all.toPrecision(4)} (mix early ${pct(m.early)}, hard early ${pct(outcome('hard', all).early)})`,
    );
  }
  const groups: Record<string, (f: string) => boolean> = {
    tweeteval: (f) => f.startsWith('cardiffnlp'),
    toxigen: (f) => f.startsWith('microsoft/TOXIGEN'),
    functional: (f) => f.startsWith('val:functional:'),
    comments: (f) => f.startsWith('val:comments:'),
  };
  for (const bound of [0.005, 0.01, 0.02])
    for (const [g, inG] of Object.entries(groups)) {
      const tau = choose('val', bound, (i) => !inG(sets.val![i]!.family));
      const o = outcome('val', tau, inG);
      console.log(
        `leave out ${g} (bound ${pct(bound)}): τ ${tau.toPrecision(3)} → ${g}: benign early ${pct(o.early)} of ${o.benign}, lost ${o.lost} / ${o.detected} (${pct(o.lostShare)})`,
      );
    }
  // what the trainer writes (stack-fit.ts): the gate fitted on all validation rows, judged cross-fitted
  const st = { weights: c.weights, bias: c.bias, reduced: { weights: r.weights, bias: r.bias } };
  const valY = sets.val!.map((e) => e.label);
  const tau = calibrateGate(st, cols.val!, valY, t, 0);
  console.log(
    `trainer gate: below ${tau} ${JSON.stringify({
      validation: gateOutcome(st, cols.val!, valY, t, tau, 0),
      cross_fitted: crossFittedGate(st, cols.val!, valY, t, 0),
      stacking_rows: gateOutcome(
        st,
        cols.stack!,
        sets.stack!.map((e) => e.label),
        t,
        tau,
        0,
      ),
      hard_negatives_early: gateOutcome(
        st,
        cols.hard!,
        sets.hard!.map(() => 0),
        t,
        tau,
        0,
      ).benign_early,
    })}`,
  );
  // sanity: the quantiles of lexical scores of the stack's detections
  const det = cols.stack![0].filter(
    (lx, i) => sets.stack![i]!.label === 1 && full(lx, cols.stack![1][i]!) > t.flag_above,
  );
  det.sort((a, b) => a - b);
  console.log(
    `stacking detections' lexical score quantiles 0.5/1/2/5 %: ${[0.005, 0.01, 0.02, 0.05].map((q) => det[Math.floor(q * det.length)]!.toFixed(4)).join(' ')}`,
  );
}

await main();
