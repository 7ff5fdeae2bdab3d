import { describe, expect, it } from 'vitest';
import { CALIBRATED_LEVELS } from '../../engine/detectors/calibration.ts';
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import {
  cascadeOutcome,
  crossFitted,
  earlyDecision,
  fitAnchors,
  fitCascade,
  fitStack,
  levelOf,
  publishedStack,
  sourceFolds,
  stackScore,
  type CalibrationRow,
} from '../../training/extra-calibrate-fit.ts';
import { gaussian, mulberry32 } from '../../training/prng.ts';
import { macroRate, TARGET_FPR } from '../../training/threshold-fit.ts';

/**
 * Rows whose detector score is a weak signal and whose model score a strong one (logit means ±`sep`),
 * from six sources in two surface groups; `flip` turns the model upside down.
 */
function rows(n: number, opts: { sep?: number; seed?: number; flip?: boolean } = {}): CalibrationRow[] {
  const rng = mulberry32(opts.seed ?? 7);
  const sep = opts.sep ?? 3;
  const out: CalibrationRow[] = [];
  for (let i = 0; i < n; i++) {
    const label = (i % 2) as 0 | 1;
    const sign = label ? 1 : -1;
    const base = sigmoid(-2 + 0.8 * sign + gaussian(rng));
    const m = sigmoid((opts.flip ? -1 : 1) * sign * sep + 1.2 * gaussian(rng));
    const source = `src${i % 6}`;
    out.push({
      base,
      model: m,
      label,
      group: i % 3 === 0 ? 'document' : 'prompt',
      origin: `public:${source}`,
      family: label ? 'direct' : 'benign',
      source,
    });
  }
  return out;
}

describe('models:calibrate — the stack', () => {
  it('is sigmoid(bias + base · logit(detector) + model · logit(model)), logits clamped as the engine clamps them', () => {
    const w = { bias: -1, base: 0.5, model: 2 };
    expect(stackScore(w, 0.3, 0.9)).toBeCloseTo(sigmoid(-1 + 0.5 * clampedLogit(0.3) + 2 * clampedLogit(0.9)), 12);
    expect(stackScore(w, 0, 1)).toBeCloseTo(sigmoid(-1 + 0.5 * clampedLogit(0) + 2 * clampedLogit(1)), 12);
  });

  it('weighs a strong model above a weak detector, both positive', () => {
    const w = fitStack(rows(2000));
    expect(w.dropped).toBeNull();
    expect(w.base).toBeGreaterThan(0);
    expect(w.model).toBeGreaterThan(w.base);
    expect(Number.isFinite(w.bias)).toBe(true);
  });

  it('drops an input the fit would turn upside down, refitting the other alone', () => {
    const w = fitStack(rows(2000, { flip: true }).map((r) => ({ ...r, model: r.label ? 0.2 : 0.8 })));
    expect(w.dropped).toBe('model');
    expect(w.model).toBe(0);
    expect(w.base).toBeGreaterThan(0);
  });

  it('refuses rows of one class', () => {
    expect(() => fitStack(rows(100).filter((r) => r.label === 1))).toThrow(/attack and benign/);
  });
});

describe('models:calibrate — the anchors', () => {
  it('per group, strictly increasing in (0, 1), each at its target rate with every origin weighing the same', () => {
    const data = rows(3000);
    const w = fitStack(data);
    const fit = fitAnchors(data, w, TARGET_FPR);
    for (const group of ['prompt', 'document'] as const) {
      const a = fit.anchors[group];
      expect(0 < a.warn_above && a.warn_above < a.flag_above && a.flag_above < a.block_above && a.block_above < 1).toBe(
        true,
      );
      const pool = data
        .filter((r) => r.label === 0 && r.group === group)
        .map((r) => ({ score: stackScore(w, r.base, r.model), origin: r.origin, floor: 0 }));
      expect(macroRate(pool, a.warn_above, 1)).toBeLessThanOrEqual(TARGET_FPR.warn_above);
      expect(macroRate(pool, a.block_above, 1)).toBeLessThanOrEqual(TARGET_FPR.block_above);
      expect(Object.values(fit.pool[group]).reduce((x, y) => x + y, 0)).toBe(pool.length);
    }
    // the published scale: the benign rows of a group warn at about the stated rate
    const prompt = data.filter((r) => r.label === 0 && r.group === 'prompt');
    const warned = prompt.filter((r) => publishedStack(w, fit.anchors, r) > CALIBRATED_LEVELS.warn_above).length;
    expect(warned / prompt.length).toBeLessThanOrEqual(0.06);
    expect(warned / prompt.length).toBeGreaterThan(0.03);
  });

  it('says which group has no benign rows', () => {
    const data = rows(300).filter((r) => r.group === 'prompt' || r.label === 1);
    expect(() => fitAnchors(data, fitStack(data), TARGET_FPR)).toThrow(/surface group document/);
  });
});

describe('models:calibrate — the auto tier cascade', () => {
  const rng = mulberry32(11);
  const data = rows(4000, { sep: 4 });
  const w = fitStack(data);
  const { anchors } = fitAnchors(data, w, TARGET_FPR);

  it('decides a row low when the stack with the model at either bound stays at or below warn, high when it is above block, answering that bound', () => {
    const c = { lower_logit: -2, upper_logit: 2 };
    const z = (base: number, m: number) => sigmoid(w.bias + w.base * clampedLogit(base) + w.model * m);
    let seen = 0;
    for (const r of data.slice(0, 400)) {
      const d = earlyDecision(w, anchors, c, r);
      const a = anchors[r.group];
      if (z(r.base, 2) <= a.warn_above) {
        expect(d?.stage).toBe('low');
        expect(d!.score).toBeLessThanOrEqual(CALIBRATED_LEVELS.warn_above);
        seen |= 1;
      } else if (z(r.base, -2) > a.block_above) {
        expect(d?.stage).toBe('high');
        expect(d!.score).toBeGreaterThan(CALIBRATED_LEVELS.block_above);
        seen |= 2;
      } else expect(d).toBeNull();
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('bounds the logits can never reach ask the model on every row and change nothing', () => {
    const always = cascadeOutcome(data, w, anchors, { lower_logit: -1e9, upper_logit: 1e9 });
    expect(always).toMatchObject({ sent: 1, early_low: 0, early_high: 0, changed: 0, lost_alarms: 0 });
  });

  it('fits the cheapest bounds that lose at most 0.5 % of the alarms and add at most 0.5 % blocks; the benign/attack reading changes far more', () => {
    const fit = fitCascade(data, w, anchors);
    expect(fit.upper_logit).toBeGreaterThanOrEqual(fit.lower_logit);
    expect(fit.outcome.lost_alarms).toBeLessThanOrEqual(0.005 * fit.outcome.alarms);
    expect(fit.outcome.extra_blocks).toBeLessThanOrEqual(0.005 * fit.outcome.blocks);
    // cheapest: a slightly lower upper would lose more than the bound allows
    const lower = cascadeOutcome(data, w, anchors, { ...fit, upper_logit: fit.upper_logit - 0.05 });
    expect(lower.lost_alarms).toBeGreaterThan(0.005 * lower.alarms);
    expect(fit.outcome.changed).toBeLessThanOrEqual(0.01 * data.length);
    // lower at the attacks' 1st percentile decides high where the model would clear the detector's false alarm
    const rule = fit.benign_attack_rule;
    expect(rule.outcome.changed).toBeGreaterThan(2 * fit.outcome.changed);
    expect(rule.outcome.extra_blocks).toBeGreaterThan(0.02 * rule.outcome.blocks);
  });

  it('with a detector that decides most rows alone, most rows never reach the model', () => {
    // the detector separates the classes well; the model adds a little
    const easy = rows(4000, { sep: 0.5 }).map((r) => ({ ...r, base: sigmoid((r.label ? 4 : -4) + gaussian(rng)) }));
    const we = fitStack(easy);
    const ae = fitAnchors(easy, we, TARGET_FPR).anchors;
    const fit = fitCascade(easy, we, ae);
    expect(fit.outcome.sent).toBeLessThan(0.5);
    expect(fit.outcome.changed).toBeLessThanOrEqual(0.01 * easy.length);
    expect(levelOf(0.95)).toBe(3);
    expect(levelOf(0.5)).toBe(0);
  });
});

describe('models:calibrate — cross-fitting by source', () => {
  it('puts whole sources in folds of about equal rows, the same way every time', () => {
    const r = [
      ...Array.from({ length: 50 }, () => ({ source: 'a' })),
      ...Array.from({ length: 30 }, () => ({ source: 'b' })),
      ...Array.from({ length: 20 }, () => ({ source: 'c' })),
      ...Array.from({ length: 10 }, () => ({ source: 'd' })),
    ];
    const f = sourceFolds(r, 2);
    expect(f).toEqual(sourceFolds([...r].reverse(), 2));
    expect(f.get('a')).not.toBe(f.get('b'));
    expect(f.get('c')).toBe(f.get('b'));
    expect(f.get('d')).toBe(f.get('a')); // 50 and 50: a tie goes to the first fold
  });

  it('scores each row with a fit on the other sources, close to the in-sample fit when the sources agree', () => {
    const data = rows(3000);
    const w = fitStack(data);
    const { anchors } = fitAnchors(data, w, TARGET_FPR);
    const cv = crossFitted(data, 5, TARGET_FPR, { weights: w, anchors });
    expect(cv).toHaveLength(data.length);
    for (const s of cv) expect(s >= 0 && s <= 1).toBe(true);
    const inSample = data.map((r) => publishedStack(w, anchors, r));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.abs(mean(cv) - mean(inSample))).toBeLessThan(0.05);
  });
});
