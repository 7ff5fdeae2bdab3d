/**
 * What inference costs on this machine, learned as it runs: milliseconds per character for each
 * (op, model), an exponentially weighted mean over the parts the worker threads timed. The
 * dispatcher cuts long requests into slices of about `sliceMs` with it, so no task holds a thread
 * for long, and refuses at once a request that could not finish before its deadline even with every
 * thread to itself. Seeded by the warm-up's timed runs of each model at full-window shapes.
 */

/** A slice of a request's texts and its estimated milliseconds. */
export interface Piece {
  texts: string[];
  cost: number;
}

/** One timed part: what a worker thread measured around one model's run. */
export interface PartTiming {
  op: string;
  model: string;
  chars: number;
  texts: number;
  ms: number;
}

// Parts shorter than this say more about per-run overhead than about per-character cost.
const MIN_CHARS_TO_LEARN = 100;
// Weight of an observation of FULL_WEIGHT_CHARS or more (shorter ones count less): a change of machine
// load shows within ~10 slices.
const ALPHA = 0.2;
const FULL_WEIGHT_CHARS = 1_000;
// Before a model has been timed: about the sentence encoder's cost (the dearest model), so an
// untimed model is sliced finely rather than coarsely.
const DEFAULT_MS_PER_CHAR = 0.01;
// Every run pays about this much whatever its length (tensor set-up, the thread hop).
const MS_PER_TEXT = 0.02;

export class InferenceCosts {
  private readonly perChar = new Map<string, number>();

  /** Folds one timed part into its model's cost. */
  record(t: PartTiming): void {
    if (t.chars < MIN_CHARS_TO_LEARN || !(t.ms >= 0)) return;
    const key = keyOf(t.op, t.model);
    const observed = Math.max(0, t.ms - t.texts * MS_PER_TEXT) / t.chars;
    const old = this.perChar.get(key);
    const weight = ALPHA * Math.min(1, t.chars / FULL_WEIGHT_CHARS);
    this.perChar.set(key, old === undefined ? observed : old + weight * (observed - old));
  }

  /** Estimated milliseconds to run `model` over texts adding up to `chars` characters. */
  estimate(op: string, model: string, chars: number, texts: number): number {
    return chars * (this.perChar.get(keyOf(op, model)) ?? DEFAULT_MS_PER_CHAR) + texts * MS_PER_TEXT;
  }

  /**
   * The texts as consecutive pieces of about `sliceMs` of inference each (whole texts; one piece when
   * short, or when `sliceMs` is 0), each with its estimated cost.
   */
  cut(op: string, model: string, texts: string[], sliceMs: number): Piece[] {
    const price = (chars: number, n: number) => this.estimate(op, model, chars, n);
    let total = 0;
    for (const t of texts) total += t.length;
    if (sliceMs <= 0 || price(total, texts.length) <= sliceMs) return [{ texts, cost: price(total, texts.length) }];
    const pieces: Piece[] = [];
    let current: string[] = [];
    let chars = 0;
    for (const t of texts) {
      if (current.length > 0 && price(chars + t.length, current.length + 1) > sliceMs) {
        pieces.push({ texts: current, cost: price(chars, current.length) });
        current = [];
        chars = 0;
      }
      current.push(t);
      chars += t.length;
    }
    pieces.push({ texts: current, cost: price(chars, current.length) });
    return pieces;
  }

  /** The learned costs, for metrics and logs: ms per 1,000 characters by `op:model`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.perChar].map(([k, v]) => [k, Math.round(v * 1e6) / 1e3]));
  }
}

function keyOf(op: string, model: string): string {
  return `${op}:${model}`;
}
