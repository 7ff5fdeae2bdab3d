import { describe, expect, it } from 'vitest';
import { scoringItem } from '../../engine/decision.ts';
import { CONTEXT_ONLY_LABELS, createPiiDetector, PII_THRESHOLDS } from '../../engine/detectors/pii.ts';
import type { ModelClient } from '../../engine/model-client.ts';
import { normalize } from '../../engine/normalize.ts';
import { modelEntry } from '../../inference/manifest.ts';
import type { Entity } from '../../inference/token-classifier.ts';

// The NER answer is fixed per text so the scoring rule can be checked exactly (the real model: integration tests).
const nerSays = (find: (text: string) => Entity[]) =>
  ({ entities: async (_m: string, texts: string[]) => texts.map(find) }) as unknown as ModelClient;
const at = (text: string, word: string, label: string, confidence: number): Entity => {
  const start = text.indexOf(word);
  return { start, end: start + word.length, label, confidence };
};
const scan = (text: string, entities: (t: string) => Entity[]) =>
  createPiiDetector(modelEntry('pii-ner'), nerSays(entities)).detect({
    text: normalize(text),
    surface: 'user_message',
    tier: 'accurate',
  });

describe('pii: places and organisations named in passing', () => {
  it('a bare place name is reported but does not raise the score', async () => {
    const text = 'What is the weather in Paris?';
    const r = await scan(text, (t) => [at(t, 'Paris', 'LOCATION', 0.98)]);
    expect(r.items.map((i) => [i.label, i.text, i.confidence])).toEqual([['LOCATION', 'Paris', 0.98]]);
    expect(r.score).toBe(0);
    expect(r.score).toBeLessThanOrEqual(PII_THRESHOLDS.warn_above);
  });

  it('nor does an organisation', async () => {
    const text = 'Is Acme Corporation hiring engineers this year?';
    const r = await scan(text, (t) => [at(t, 'Acme Corporation', 'ORGANIZATION', 0.95)]);
    expect(r.items).toHaveLength(1);
    expect(r.score).toBe(0);
  });

  it('a person, a street address or a validated identifier still counts, and is the item behind the score', async () => {
    const text = 'Book a table in London for John Smith, card 4111 1111 1111 1111.';
    const r = await scan(text, (t) => [at(t, 'London', 'LOCATION', 0.99), at(t, 'John Smith', 'PERSON', 0.8)]);
    const card = r.items.find((i) => i.label === 'CREDIT_CARD')!;
    expect(card).toBeDefined();
    expect(r.score).toBe(card.confidence);
    expect(scoringItem(r)?.label).toBe('CREDIT_CARD');
    const person = await scan('Dinner with John Smith in London.', (t) => [
      at(t, 'London', 'LOCATION', 0.99),
      at(t, 'John Smith', 'PERSON', 0.8),
    ]);
    expect(person.score).toBe(0.8);
    expect(scoringItem(person)?.label).toBe('PERSON');
    const street = await scan('Ship it to 221B Baker Street.', (t) => [at(t, '221B Baker Street', 'ADDRESS', 0.9)]);
    expect(street.score).toBeGreaterThan(PII_THRESHOLDS.warn_above);
  });

  it('the context-only labels are the place and organisation labels the NER model emits', () => {
    const labels = modelEntry('pii-ner').labels;
    for (const l of CONTEXT_ONLY_LABELS) expect(labels).toContain(l);
    expect(CONTEXT_ONLY_LABELS.has('ADDRESS')).toBe(false);
    expect(CONTEXT_ONLY_LABELS.has('PERSON')).toBe(false);
  });
});

describe('scoringItem', () => {
  it('is the item whose confidence is the score, else the most confident', () => {
    const items = [
      { label: 'LOCATION', confidence: 0.99 },
      { label: 'PERSON', confidence: 0.7 },
    ];
    expect(scoringItem({ detector: 'pii', score: 0.7, items })?.label).toBe('PERSON');
    expect(scoringItem({ detector: 'x', score: 0.5, items })?.label).toBe('LOCATION');
    expect(scoringItem({ detector: 'x', score: 0, items: [] })).toBeNull();
  });
});
