import { describe, expect, it } from 'vitest';
import { calibrateGate, cascadeOutcome, gateMax, gateOutcome, type Stack } from '../../training/trainers/stack-fit.ts';

// Two inputs: 0 = the cheap lexical score, 1 = the deferred encoder score. The stack is their logit sum;
// its reduced form reads the cheap input alone.
const st: Stack = { weights: [1, 1], bias: 0, reduced: { weights: [1], bias: 0 } };
const t = { warn_above: 0.3, flag_above: 0.5, block_above: 0.9 };
//             benign ........................  toxic .......................
const cheap = [0.01, 0.02, 0.05, 0.2, 0.25, 0.03, 0.04, 0.2, 0.6, 0.9];
const deep = [0.1, 0.1, 0.2, 0.1, 0.2, 0.99, 0.2, 0.9, 0.9, 0.9];
const labels = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
const cols = [cheap, deep];

describe('stack-fit: the auto tier cascade outcomes the trainers choose from', () => {
  it("a `below` gate ends the rows at or below it early and counts the stack's detections it loses", () => {
    // detections (stack above flag): rows 5, 7, 8, 9 (row 6: 0.04 and 0.2 stay below flag)
    expect(gateOutcome(st, cols, labels, t, 0.03, 0)).toEqual({ below: 0.03, benign_early: 0.4, detected: 4, lost: 1 });
    expect(gateOutcome(st, cols, labels, t, 0.025, 0)).toEqual({
      below: 0.025,
      benign_early: 0.4,
      detected: 4,
      lost: 0,
    });
    // rows outside `rows` are not counted
    expect(gateOutcome(st, cols, labels, t, 0.03, 0, (i) => i !== 5)).toMatchObject({ detected: 3, lost: 0 });
  });

  it('calibrateGate picks the highest score under the bound, never above gateMax', () => {
    expect(gateMax(st, t)).toBeCloseTo(0.3, 10);
    expect(calibrateGate(st, cols, labels, t, 0, 0)).toBe(0.02); // 0.03 would lose row 5
    // one loss of four allowed: 0.05 loses row 5 only, 0.2 also row 7; 0.6 and 0.9 are above gateMax
    expect(calibrateGate(st, cols, labels, t, 0, 0.25)).toBe(0.05);
  });

  it('the upper_logit form ends a row early only when the stack with the deferred input at upper stays at or below warn', () => {
    // upper 0: early where the cheap score alone is at or below warn: every benign row, and detections 5 and 7
    const loose = cascadeOutcome(st, cols, labels, t, 0, { defer: 1, reduced: () => false });
    expect(loose).toEqual({ upper: 0, benign_early: 1, detected: 4, lost: 2 });
    // upper 3: only cheap scores up to ~0.021 end early (rows 0 and 1); row 9 scores reduced, outside the cascade
    const tight = cascadeOutcome(st, cols, labels, t, 3, { defer: 1, reduced: (i) => i === 9 });
    expect(tight).toEqual({ upper: 3, benign_early: 0.4, detected: 3, lost: 0 });
  });
});
