import { describe, expect, it } from 'vitest';
import { crossFitGate, earlyShare, fitGate, gateLoss, type GateRow } from '../../training/toxicity-gate.ts';

const WARN = 0.5;
const FLAG = 0.8;
// toxic rows the full stack detects (above warn), by lexical score; benign ones it warns on do not count
const detected = [0.05, 0.12, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95].map((lexical, i): GateRow => ({
  lexical,
  full: i < 5 ? 0.6 : 0.9,
  label: 1,
}));
const rows: GateRow[] = [
  ...detected,
  { lexical: 0.02, full: 0.9, label: 0 }, // a benign alarm: ending it early is no loss
  { lexical: 0.01, full: 0.3, label: 1 }, // toxic but below warn: the stack missed it anyway
  { lexical: 0.2, full: 0.1, label: 0 },
];

describe('the toxicity gate (toxicity-gate.ts)', () => {
  it('sits strictly below the first toxic detection it may not lose', () => {
    // no loss allowed: below 0.05 (a gate equal to it would end that row early)
    expect(fitGate(rows, WARN, 0)).toBe(0.0499);
    expect(gateLoss(rows, fitGate(rows, WARN, 0), WARN)).toEqual({ detected: 10, lost: 0 });
    // 10 % of 10 detections: one may go, so the gate stops below the second
    expect(fitGate(rows, WARN, 0.1)).toBe(0.1199);
    expect(gateLoss(rows, 0.1199, WARN)).toEqual({ detected: 10, lost: 1 });
    // held at flag only the rows above it count
    expect(fitGate(rows, FLAG, 0)).toBe(0.5999);
  });

  it('ignores benign alarms and missed toxic rows, and opens fully without detections', () => {
    expect(fitGate(rows.slice(10), WARN, 0)).toBe(1);
    expect(gateLoss(rows, 0.03, WARN).lost).toBe(0);
    expect(earlyShare(rows.slice(10), 0.03)).toBeCloseTo(2 / 3, 12);
  });

  it('cross-fits: each half judged with the gate fitted on the other, seeded', () => {
    const many = Array.from({ length: 400 }, (_, i): GateRow => {
      const lexical = ((i * 37) % 400) / 400;
      return { lexical, full: lexical > 0.1 && i % 2 === 0 ? 0.9 : 0.2, label: i % 2 === 0 ? 1 : 0 };
    });
    const a = crossFitGate(many, { warn: WARN, flag: FLAG }, 0.005, 4, 7);
    expect(a).toEqual(crossFitGate(many, { warn: WARN, flag: FLAG }, 0.005, 4, 7));
    expect(a.gates).toHaveLength(8);
    // in-sample a gate allowed no loss loses nothing; judged on the other half it loses the rows below the
    // fitted half's lowest detection: the honest estimate is not zero
    expect(gateLoss(many, fitGate(many, WARN, 0.005), WARN).lost).toBe(0);
    expect(a.warn.lost).toBeGreaterThan(0);
    expect(a.warn.lost).toBeLessThan(8 * 3);
    // each round judges every row once
    expect(a.warn.detected).toBe(4 * many.filter((r) => r.label === 1 && r.full > WARN).length);
    expect(a.flag.detected).toBe(a.warn.detected);
    expect(a.gates.every((g) => g > 0.1 && g < 0.15)).toBe(true);
  });
});
