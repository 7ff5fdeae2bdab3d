/**
 * The auto tier's toxicity gate (`combine.cascade.below`): the encoder runs only where the lexical score
 * exceeds it. Fitted by `npm run train:thresholds` on the labelled rows' scores from the service's own
 * scan path (the lexical score is the max over the windows and the spelling view, as served).
 *
 * The gate is held to recall: a toxic row the full stack puts above the calibrated warn anchor is lost
 * when the gate ends it early. Benign rows the stack warns on are not counted as losses (ending them early
 * lowers the false alarms). Fitting at warn, below the flag anchor the target is stated at, leaves a margin
 * at flag: a gate fitted at flag itself sits on the few lowest detections and, cross-fitted, loses more
 * than its bound on the half it was not fitted on.
 */
import { mulberry32, shuffleInPlace } from './prng.ts';

export interface GateRow {
  /** the lexical model's score (what the gate compares) */
  lexical: number;
  /** the full stack's raw score (lexical + encoder) */
  full: number;
  label: number;
}

/** Decimal places of a written gate. */
const PLACES = 4;

/**
 * The highest gate (PLACES decimals) at which at most `loss` of the toxic rows with a full score above
 * `level` are ended early (lexical at or below the gate); 1 when there are none.
 */
export function fitGate(rows: readonly GateRow[], level: number, loss: number): number {
  const kept = rows
    .filter((r) => r.label === 1 && r.full > level)
    .map((r) => r.lexical)
    .sort((a, b) => a - b);
  const first = kept[Math.floor(loss * kept.length)];
  if (first === undefined) return 1;
  // strictly below the first row that may not be lost (a gate equal to it would end it early)
  const scale = 10 ** PLACES;
  return Math.max(0, (Math.ceil(first * scale) - 1) / scale);
}

/** The toxic rows above `level` and how many of them `gate` ends early (lost). */
export function gateLoss(rows: readonly GateRow[], gate: number, level: number): { detected: number; lost: number } {
  const detected = rows.filter((r) => r.label === 1 && r.full > level);
  return { detected: detected.length, lost: detected.filter((r) => r.lexical <= gate).length };
}

/** The share of `rows` a gate ends early (their lexical score at or below it). */
export const earlyShare = (rows: readonly GateRow[], gate: number): number =>
  rows.length ? rows.filter((r) => r.lexical <= gate).length / rows.length : 0;

export interface CrossFit {
  /** summed over every round and half: toxic rows above each level, and those lost */
  warn: { detected: number; lost: number };
  flag: { detected: number; lost: number };
  /** the gates fitted on the halves, sorted */
  gates: number[];
}

/**
 * An honest estimate of the loss of a gate fitted by `fitGate` at `warn`: `rounds` seeded random halvings,
 * the gate fitted on each half and judged on the other, at warn and at flag.
 */
export function crossFitGate(
  rows: readonly GateRow[],
  anchors: { warn: number; flag: number },
  loss: number,
  rounds = 20,
  seed = 41,
): CrossFit {
  const rand = mulberry32(seed);
  const out: CrossFit = { warn: { detected: 0, lost: 0 }, flag: { detected: 0, lost: 0 }, gates: [] };
  for (let k = 0; k < rounds; k++) {
    const order = shuffleInPlace(
      rows.map((_, i) => i),
      rand,
    );
    const half = order.length >> 1;
    const parts = [order.slice(0, half), order.slice(half)].map((ix) => ix.map((i) => rows[i]!));
    for (const [fit, judge] of [parts, [...parts].reverse()] as const) {
      const gate = fitGate(fit!, anchors.warn, loss);
      out.gates.push(gate);
      for (const level of ['warn', 'flag'] as const) {
        const o = gateLoss(judge!, gate, anchors[level]);
        out[level].detected += o.detected;
        out[level].lost += o.lost;
      }
    }
  }
  out.gates.sort((a, b) => a - b);
  return out;
}
