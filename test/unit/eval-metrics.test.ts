import { describe, expect, it } from 'vitest';
import {
  classifierStats,
  matchSpans,
  piiReport,
  recallAtFpr,
  spanScores,
  toEvalLabel,
  type ClassifierRow,
} from '../../training/eval-metrics.ts';

describe('eval labels', () => {
  it.each([
    ['EMAIL_ADDRESS', 'EMAIL'],
    ['PHONE_NUMBER', 'PHONE'],
    ['US_SSN', 'SSN'],
    ['IBAN_CODE', 'IBAN'],
    ['STREET_ADDRESS', 'ADDRESS'],
    ['person', 'PERSON'],
    ['LOCATION', null],
    ['ORGANIZATION', null],
    ['DATE_TIME', null],
  ])('%s → %s', (label, expected) => {
    expect(toEvalLabel(label)).toBe(expected);
  });
});

describe('span matching', () => {
  const gold = [
    { start: 0, end: 10, label: 'PERSON' },
    { start: 20, end: 35, label: 'EMAIL_ADDRESS' },
    { start: 40, end: 50, label: 'LOCATION' },
  ];
  it('strict needs exact offsets and label; labels outside the eval set are not scored', () => {
    const c = matchSpans(
      gold,
      [
        { start: 0, end: 9, label: 'PERSON' },
        { start: 20, end: 35, label: 'EMAIL' },
        { start: 40, end: 50, label: 'LOCATION' },
      ],
      'strict',
    );
    expect(c.get('PERSON')).toEqual({ tp: 0, fp: 1, fn: 1 });
    expect(c.get('EMAIL')).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(c.has('ADDRESS')).toBe(false);
  });
  it('overlap accepts a shared character, one prediction per gold span', () => {
    const c = matchSpans(
      gold,
      [
        { start: 0, end: 9, label: 'PERSON' },
        { start: 2, end: 4, label: 'PERSON' },
        { start: 21, end: 22, label: 'PHONE' },
      ],
      'overlap',
    );
    expect(c.get('PERSON')).toEqual({ tp: 1, fp: 1, fn: 0 });
    expect(c.get('PHONE')).toEqual({ tp: 0, fp: 1, fn: 0 });
    expect(c.get('EMAIL')).toEqual({ tp: 0, fp: 0, fn: 1 });
  });
  it('F2 weighs recall over precision', () => {
    const s = spanScores({ tp: 8, fp: 0, fn: 2 });
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(0.8);
    expect(s.f2).toBeCloseTo((5 * 0.8) / (4 + 0.8), 10);
    const r = piiReport([{ gold, predicted: gold, source: 'a' }]);
    expect(r.structured.strict).toMatchObject({ tp: 1, fp: 0, fn: 0, f2: 1 });
    expect(r.all.strict).toMatchObject({ tp: 2, fp: 0, fn: 0 });
  });
});

describe('classifier metrics', () => {
  const rows: ClassifierRow[] = [
    { score: 0.9, detected: true, label: 1 },
    { score: 0.8, detected: true, label: 1 },
    { score: 0.3, detected: false, label: 1 },
    { score: 0.85, detected: true, label: 0 },
    { score: 0.2, detected: false, label: 0 },
    { score: 0.1, detected: false, label: 0 },
    { score: 0.05, detected: false, label: 0 },
  ];
  it('uses the detected flags for P/R/FPR and the scores for ROC AUC', () => {
    const s = classifierStats(rows);
    expect(s.precision).toBeCloseTo(2 / 3, 10);
    expect(s.recall).toBeCloseTo(2 / 3, 10);
    expect(s.fpr).toBe(0.25);
    expect(s.roc_auc).toBeCloseTo(10 / 12, 10);
  });
  it('recall at a fixed FPR puts the threshold above the allowed negatives', () => {
    expect(recallAtFpr(rows, 0)).toBeCloseTo(1 / 3, 10); // above 0.85: only 0.9
    expect(recallAtFpr(rows, 0.25)).toBe(1); // one negative allowed: above 0.2, so 0.3 counts
  });
});
