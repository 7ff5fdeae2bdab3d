import { describe, expect, it } from 'vitest';
import type { Tier } from '../../engine/detector.ts';
import { createPiiDetector } from '../../engine/detectors/pii.ts';
import { merge, withExtraEntities } from '../../engine/detectors/pii-extra.ts';
import { abortReason, ModelUnavailableError, type ModelClient } from '../../engine/model-client.ts';
import { normalize } from '../../engine/normalize.ts';
import type { ExtraModel } from '../../inference/extra-models.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import type { Entity } from '../../inference/token-classifier.ts';

const tagger: ExtraModel = {
  name: 'names',
  version: '1.1',
  detector: 'pii',
  task: 'token-classification',
  dir: '/nonexistent/names',
  sha256: {},
  labels: ['O', 'B-PER', 'I-PER'],
  positive: [],
  entities: { PER: 'PERSON' },
  minConfidence: 0.5,
  surfaces: null,
  maxTokens: 64,
  strideTokens: 8,
  maxChars: 200,
  timeoutMs: 1500,
  modelType: 'bert',
  entry: {} as ExtraModel['entry'],
};
const ner = { id: 'pii-ner', version: '1', max_chars: 200 } as ModelEntry;

const TEXT = 'Write to Dana Whitfield at dana@example.com about the invoice.';
const at = (s: string): [number, number] => [TEXT.indexOf(s), TEXT.indexOf(s) + s.length];
const entity = (s: string, label: string, confidence: number): Entity => ({
  start: at(s)[0],
  end: at(s)[1],
  label,
  confidence,
});

/** Our NER and the operator's tagger answer per model; `hang`: never, until the request is called off. */
function pool(answers: Record<string, Entity[] | Error | 'hang'>) {
  const asked: string[] = [];
  const models: ModelClient = {
    classify: () => Promise.reject(new Error('not a classifier')),
    entities: (model, texts, call) => {
      asked.push(model);
      const a = answers[model] ?? [];
      if (a === 'hang')
        return new Promise((_, reject) =>
          call.signal!.addEventListener('abort', () => reject(abortReason(call.signal!)), { once: true }),
        );
      if (a instanceof Error) return Promise.reject(a);
      return Promise.resolve(texts.map((_, i) => (i === 0 ? a : [])));
    },
  };
  return { asked, models };
}

function detector(
  answers: Record<string, Entity[] | Error | 'hang'>,
  o: { model?: Partial<ExtraModel>; loaded?: boolean } = {},
) {
  const p = pool(answers);
  const fallbacks: string[] = [];
  const m = { ...tagger, ...o.model };
  const d = withExtraEntities(createPiiDetector(ner, p.models), {
    models: [m],
    loaded: new Set(o.loaded === false ? [] : [m.name]),
    client: p.models,
    observe: { fallback: (_m, r) => fallbacks.push(r) },
  });
  const scan = (tier: Tier) => Promise.resolve(d.detect({ text: normalize(TEXT), surface: 'user_message', tier }));
  return { d, scan, asked: p.asked, fallbacks };
}

describe("pii: an operator's token classifier", () => {
  it('names the model in the catalog', () => {
    expect(detector({}).d.model).toBe('regex; pii-ner@1 (ner); names@1.1 (entities: accurate, auto)');
  });

  it('accurate and auto: its entity is an item with its exact span, label and source; fast skips it', async () => {
    const t = detector({ names: [entity('Dana Whitfield', 'PERSON', 0.93)] });
    for (const tier of ['accurate', 'auto'] as const) {
      const r = await t.scan(tier);
      const item = r.items.find((i) => i.source === 'model:names@1.1')!;
      expect(item).toEqual({
        text: 'Dana Whitfield',
        label: 'PERSON',
        confidence: 0.93,
        source: 'model:names@1.1',
        span: at('Dana Whitfield'),
      });
      expect(r.score).toBe(0.93);
      expect(r.items.find((i) => i.label === 'EMAIL_ADDRESS')?.source).toBe('regex');
    }
    t.asked.length = 0;
    const fast = await t.scan('fast');
    expect(t.asked).toEqual(['pii-ner']);
    expect(fast.items.some((i) => i.source.startsWith('model:names'))).toBe(false);
  });

  it('regex items win overlaps; with our NER the same span and label is reported once, the more confident', async () => {
    const t = detector({
      'pii-ner': [entity('Dana Whitfield', 'PERSON', 0.7)],
      names: [entity('Dana Whitfield', 'PERSON', 0.9), entity('dana@example.com', 'PERSON', 0.99)],
    });
    const r = await t.scan('accurate');
    const person = r.items.filter((i) => i.label === 'PERSON');
    expect(person).toHaveLength(1);
    expect(person[0]).toMatchObject({ source: 'model:names@1.1', confidence: 0.9 });
    expect(r.items.find((i) => i.span[0] === at('dana@example.com')[0])!.source).toBe('regex');
    const lower = await detector({
      'pii-ner': [entity('Dana Whitfield', 'PERSON', 0.95)],
      names: [entity('Dana Whitfield', 'PERSON', 0.9)],
    }).scan('accurate');
    expect(lower.items.filter((i) => i.label === 'PERSON')).toEqual([expect.objectContaining({ source: 'ner' })]);
  });

  it('unavailable, not loaded or past its timeout: regex and our NER stand, with a note', async () => {
    const crashed = detector({
      'pii-ner': [entity('Dana Whitfield', 'PERSON', 0.7)],
      names: new ModelUnavailableError('worker_crashed', 'x'),
    });
    const r = await crashed.scan('accurate');
    expect(r.note).toBe('extra_model=names;reason=worker_crashed');
    expect(r.items.map((i) => i.source).sort()).toEqual(['ner', 'regex']);
    expect(crashed.fallbacks).toEqual(['worker_crashed']);
    const unloaded = detector({}, { loaded: false });
    expect((await unloaded.scan('auto')).note).toBe('extra_model=names;reason=model_not_loaded');
    expect(unloaded.asked).toEqual(['pii-ner']);
    const slow = detector({ names: 'hang' }, { model: { timeoutMs: 10 } });
    expect((await slow.scan('accurate')).note).toBe('extra_model=names;reason=timeout');
    const nerDown = detector(
      { 'pii-ner': new ModelUnavailableError('inference_failed', 'x'), names: 'hang' },
      {
        model: { timeoutMs: 10 },
      },
    );
    expect((await nerDown.scan('accurate')).note).toBe(
      'ner_unavailable;reason=inference_failed;extra_model=names;reason=timeout',
    );
  });

  it("only on the model's surfaces", async () => {
    const t = detector({ names: [entity('Dana Whitfield', 'PERSON', 0.93)] }, { model: { surfaces: ['document'] } });
    expect((await t.scan('accurate')).items.some((i) => i.source.startsWith('model:'))).toBe(false);
  });

  it('merge: context-only and other labels pass; a different label on the same span is its own item', () => {
    const base = [{ text: 'x', label: 'PERSON', confidence: 0.6, source: 'ner', span: [0, 4] as [number, number] }];
    const found = [
      { text: 'x', label: 'LOCATION', confidence: 0.8, source: 'model:names@1.1', span: [0, 4] as [number, number] },
    ];
    expect(merge(base, found)).toHaveLength(2);
  });
});
