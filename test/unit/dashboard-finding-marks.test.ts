/**
 * The dashboard's highlighting of findings (dashboard/src/finding-marks.ts): located findings cut the
 * text into marked runs, overlaps keep both labels, and a classifier's finding over the whole text is
 * a whole-text label instead of a mark over everything.
 */
import { describe, expect, it } from 'vitest';
import { segmentsOf, wholeTextLabels, type ScanFindings } from '../../dashboard/src/finding-marks.ts';

const TEXT = 'Mail jane@example.com now';
const EMAIL: [number, number] = [5, 21];

const scan = (...findings: [string, string, [number, number], string][]): ScanFindings => ({
  findings: findings.map(([detector, label, span, source]) => ({ detector, items: [{ label, span, source }] })),
});

describe('finding marks', () => {
  it('marks a located finding and leaves the rest plain', () => {
    const s = scan(['pii', 'EMAIL_ADDRESS', EMAIL, 'regex']);
    expect(segmentsOf(TEXT, s)).toEqual([
      { text: 'Mail ', labels: [] },
      { text: 'jane@example.com', labels: ['pii: EMAIL_ADDRESS'] },
      { text: ' now', labels: [] },
    ]);
    expect(wholeTextLabels(TEXT, s)).toEqual([]);
  });

  it("labels a classifier's finding over the whole text (blanks aside) instead of marking all of it", () => {
    const s = scan(
      ['toxicity', 'toxic', [0, TEXT.length], 'model:toxicity@1'],
      ['prompt_injection', 'injection', [0, TEXT.length + 2], 'model:pi@1'],
      ['pii', 'EMAIL_ADDRESS', EMAIL, 'regex'],
    );
    expect(
      wholeTextLabels(` ${TEXT}\n`, scan(['toxicity', 'toxic', [1, TEXT.length + 1], 'model:toxicity@1'])),
    ).toEqual(['toxicity: toxic']);
    expect(wholeTextLabels(TEXT, s)).toEqual(['toxicity: toxic', 'prompt_injection: injection']);
    expect(segmentsOf(TEXT, s).filter((x) => x.labels.length > 0)).toEqual([
      { text: 'jane@example.com', labels: ['pii: EMAIL_ADDRESS'] },
    ]);
  });

  it('keeps a classifier window that is part of the text as a mark, and a located match of the whole text too', () => {
    const partial = scan(['toxicity', 'toxic', [5, 21], 'model:toxicity@1']);
    expect(wholeTextLabels(TEXT, partial)).toEqual([]);
    expect(segmentsOf(TEXT, partial)[1]).toEqual({ text: 'jane@example.com', labels: ['toxicity: toxic'] });
    const email = 'jane@example.com';
    const located = scan(['pii', 'EMAIL_ADDRESS', [0, email.length], 'regex']);
    expect(wholeTextLabels(email, located)).toEqual([]);
    expect(segmentsOf(email, located)).toEqual([{ text: email, labels: ['pii: EMAIL_ADDRESS'] }]);
  });

  it('overlapping findings show as adjoining runs with both labels', () => {
    const s = scan(['pii', 'EMAIL_ADDRESS', EMAIL, 'regex'], ['secrets', 'token', [10, 25], 'regex']);
    expect(segmentsOf(TEXT, s).map((x) => x.labels.length)).toEqual([0, 1, 2, 1]);
  });
});
