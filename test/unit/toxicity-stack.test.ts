import { describe, expect, it } from 'vitest';
import { createToxicityDetector, TERMS_SOURCE } from '../../engine/detectors/toxicity.ts';
import { CALIBRATED_LEVELS } from '../../engine/detectors/calibration.ts';
import { compileIntentRules, loadToxicLexicon, TOXICITY_RULES } from '../../engine/detectors/intent-rules.ts';
import { ModelUnavailableError, type ModelClient } from '../../engine/model-client.ts';
import { normalize } from '../../engine/normalize.ts';
import type { Surface, Tier } from '../../engine/detector.ts';
import { spellingView } from '../../engine/views.ts';
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import { modelEntry, type ModelEntry } from '../../inference/manifest.ts';
import { logisticStack } from '../../engine/detectors/stacking.ts';

// The real manifest entries; the pool's answers are fixed per model so the stack can be checked exactly.
const entry = modelEntry('toxicity');
const semantic = modelEntry('toxicity-semantic');
const combine = entry.combine;
if (combine?.method !== 'logistic' || !combine.reduced)
  throw new Error(`toxicity combine is ${JSON.stringify(combine)}`);
const c = combine;
const reduced = combine.reduced;
const t = entry.thresholds!;

function pool(answers: Record<string, number | Error | ((text: string) => number)>) {
  const asked: string[] = [];
  const models = {
    classify: async (model: string, texts: string[]) => {
      asked.push(model);
      const a = answers[model];
      if (a instanceof Error) throw a;
      return texts.map((x) => (typeof a === 'function' ? a(x) : (a ?? 0)));
    },
  } as unknown as ModelClient;
  return { asked, models };
}

const scan = (models: ModelClient, o: { tier?: Tier; surface?: Surface; text?: string; withSemantic?: boolean } = {}) =>
  createToxicityDetector({ entry, semantic: o.withSemantic === false ? null : semantic, models, raw: true }).detect({
    text: normalize(o.text ?? 'you are all worthless'),
    surface: o.surface ?? 'user_message',
    tier: o.tier ?? 'accurate',
  });

const full = (lex: number, sem: number): number =>
  sigmoid(c.bias + c.weights[0]! * clampedLogit(lex) + c.weights[1]! * clampedLogit(sem));
const small = (lex: number): number => sigmoid(reduced.bias + reduced.weights[0]! * clampedLogit(lex));

describe('toxicity stack', () => {
  it('the manifest stacks the lexical model and the sentence encoder; the encoder is deferred and dropped off conversation surfaces', () => {
    expect(c.inputs).toEqual(['toxicity', 'toxicity-semantic']);
    if (c.cascade) expect(c.cascade.defer).toBe('toxicity-semantic');
    expect(reduced.drop).toBe('toxicity-semantic');
    expect(reduced.surfaces).toEqual(expect.arrayContaining(['document', 'tool_result']));
    expect(reduced.surfaces).not.toContain('user_message');
    expect(reduced.surfaces).not.toContain('assistant_output');
  });

  it('the accurate tier runs both models and scores the stacked logits', async () => {
    const p = pool({ toxicity: 0.6, 'toxicity-semantic': 0.9 });
    const r = await scan(p.models);
    expect(p.asked).toEqual(['toxicity', 'toxicity-semantic']);
    expect(r.score).toBeCloseTo(full(0.6, 0.9), 12);
  });

  it.runIf(!c.cascade)('without a cascade the auto tier runs both models, as accurate', async () => {
    const p = pool({ toxicity: 0.001, 'toxicity-semantic': 0.99 });
    const r = await scan(p.models, { tier: 'auto' });
    expect(p.asked).toEqual(['toxicity', 'toxicity-semantic']);
    expect(r.score).toBeCloseTo(full(0.001, 0.99), 12);
  });

  it('the fast tier and document surfaces score with the reduced form, without the encoder', async () => {
    for (const o of [{ tier: 'fast' as const }, { surface: 'document' as const }]) {
      const p = pool({ toxicity: 0.6, 'toxicity-semantic': 0.9 });
      const r = await scan(p.models, o);
      expect(p.asked).toEqual(['toxicity']);
      expect(r.score).toBeCloseTo(small(0.6), 12);
    }
  });

  it.runIf(c.cascade)(
    'the auto tier skips the encoder when the lexical score cannot reach warn, and runs it otherwise',
    async () => {
      const low = pool({ toxicity: 0.001, 'toxicity-semantic': 0.99 });
      const r = await scan(low.models, { tier: 'auto' });
      expect(low.asked).toEqual(['toxicity']);
      expect(r.score).toBeLessThanOrEqual(t.warn_above);
      expect(r.items).toEqual([]);
      const high = pool({ toxicity: 0.9, 'toxicity-semantic': 0.99 });
      const h = await scan(high.models, { tier: 'auto' });
      expect(high.asked).toEqual(['toxicity', 'toxicity-semantic']);
      expect(h.score).toBeCloseTo(full(0.9, 0.99), 12);
      expect(h.items[0]?.label).toBe('toxic');
    },
  );

  it.runIf(c.cascade && 'below' in c.cascade)(
    'the `below` cascade: at or below the gate the reduced stack answers without the encoder; above it both run',
    async () => {
      const gate = (c.cascade as { below: number }).below;
      const at = pool({ toxicity: gate, 'toxicity-semantic': 0.99 });
      const r = await scan(at.models, { tier: 'auto' });
      expect(at.asked).toEqual(['toxicity']);
      expect(r.score).toBeCloseTo(small(gate), 12);
      const over = pool({ toxicity: gate * 1.01, 'toxicity-semantic': 0.99 });
      const o = await scan(over.models, { tier: 'auto' });
      expect(over.asked).toEqual(['toxicity', 'toxicity-semantic']);
      expect(o.score).toBeCloseTo(full(gate * 1.01, 0.99), 12);
    },
  );

  it('a `below` cascade needs a reduced stack dropping its input and a gate in (0, 1); it never answers above warn', () => {
    const models = [entry, semantic] as ModelEntry[];
    const make = (cascade: unknown, r: unknown = reduced) =>
      logisticStack(entry, { ...c, cascade, reduced: r } as typeof c, models, []);
    expect(() => make({ defer: 'toxicity-semantic', below: 0.01 }, null)).toThrow(/unsupported combine/);
    expect(() => make({ defer: 'toxicity-semantic', below: 1.5 })).toThrow(/unsupported combine/);
    const tops = (lex: number) =>
      new Map([
        ['toxicity', { score: lex, window: null }],
        ['toxicity-semantic', { score: 0.5, window: null }],
      ]);
    // a gate so high that the reduced score passes warn: the encoder runs
    const loose = make({ defer: 'toxicity-semantic', below: 0.9 }).cascade!;
    expect(loose.early(tops(0.85), t.warn_above)).toBeNull();
    expect(loose.early(tops(0.001), t.warn_above)?.score).toBeCloseTo(small(0.001), 12);
    expect(loose.early(tops(0.95), t.warn_above)).toBeNull();
  });

  it('without the encoder loaded, or when it fails, the reduced form answers; when the lexical model fails the score is 0 with a note', async () => {
    const notLoaded = pool({ toxicity: 0.6 });
    expect((await scan(notLoaded.models, { withSemantic: false })).score).toBeCloseTo(small(0.6), 12);
    expect(notLoaded.asked).toEqual(['toxicity']);
    const crashed = pool({
      toxicity: 0.6,
      'toxicity-semantic': new ModelUnavailableError('worker_crashed', 'gone'),
    });
    expect((await scan(crashed.models)).score).toBeCloseTo(small(0.6), 12);
    const down = pool({ toxicity: new ModelUnavailableError('inference_failed', 'no') });
    const r = await scan(down.models);
    expect(r.score).toBe(0);
    expect(r.note).toBe('model_unavailable;reason=inference_failed');
  });
});

describe('spelling view', () => {
  it.each([
    ['I h a t e you', 'I hate you'],
    ['k.i.l.l them all', 'kill them all'],
    ['they are p4r4s1t3s', 'they are parasites'],
    ['what a p1ece of sh1t', 'what a piece of shit'],
    ['you 1d10t', 'you idiot'],
  ])('%s reads as %s', (text, view) => {
    expect(spellingView(text)?.text).toBe(view);
  });

  it.each([
    'see you on the 4th',
    'run 10km at 5am',
    'mail bob@corp.io',
    'plain words only',
    'thanks @user2 #WWG1WGA',
    'the PS4 and $AAPL',
  ])('%s has no spelling view', (text) => {
    expect(spellingView(text)).toBeNull();
  });

  it('the view is scored beside the text: a finding from it says so and spans the original text', async () => {
    const read = (x: string): number => (x.includes('parasites') ? 0.99 : 0.01);
    const p = pool({ toxicity: read, 'toxicity-semantic': read });
    const r = await scan(p.models, { text: 'they are p4r4s1t3s' });
    expect(r.items).toHaveLength(1);
    expect(r.items[0]!.source).toMatch(/;view=spelling$/);
    expect(r.items[0]!.text).toBe('they are p4r4s1t3s');
  });
});

describe('toxicity term rules on the calibrated scale', () => {
  const terms = compileIntentRules(loadToxicLexicon(), TOXICITY_RULES);
  const scanTerms = (text: string, surface: Surface = 'user_message', rules: typeof terms | null = terms) =>
    createToxicityDetector({
      entry,
      semantic,
      models: pool({ toxicity: 0.01, 'toxicity-semantic': 0.01 }).models,
      terms: rules,
    }).detect({
      text: normalize(text),
      surface,
      tier: 'accurate',
    });

  it('a listed term flags with an item naming its words; a homonym term only warns; documents one level lower', async () => {
    const flagged = await scanTerms('야 이 미친년아 꺼져');
    expect(flagged.score).toBeGreaterThan(CALIBRATED_LEVELS.flag_above);
    expect(flagged.score).toBeLessThan(CALIBRATED_LEVELS.block_above);
    expect(flagged.items).toContainEqual(
      expect.objectContaining({ label: 'toxic', source: TERMS_SOURCE, text: '미친년' }),
    );
    const homonym = await scanTerms('Du bist so behindert');
    expect(homonym.score).toBeGreaterThan(CALIBRATED_LEVELS.warn_above);
    expect(homonym.score).toBeLessThan(CALIBRATED_LEVELS.flag_above);
    const doc = await scanTerms('야 이 미친년아 꺼져', 'document');
    expect(doc.score).toBeGreaterThan(CALIBRATED_LEVELS.warn_above);
    expect(doc.score).toBeLessThan(CALIBRATED_LEVELS.flag_above);
  });

  it('no term, or no rules: the model score alone', async () => {
    const plain = await scanTerms('오늘 날씨가 좋네요');
    expect(plain.items.filter((i) => i.source === TERMS_SOURCE)).toEqual([]);
    expect(plain.score).toBeLessThan(CALIBRATED_LEVELS.warn_above);
    const off = await scanTerms('야 이 미친년아 꺼져', 'user_message', null);
    expect(off.score).toBe(plain.score);
  });
});
