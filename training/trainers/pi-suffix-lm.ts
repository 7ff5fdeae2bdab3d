/**
 * Fits the character 5-gram model of pi-suffix: interpolated modified Kneser-Ney (Chen & Goodman
 * discounts D1, D2, D3+ per order; continuation counts below the top order), written in backoff form
 * into the hashed table of `inference/char-lm.ts` (stored p for n-grams kept, backoff = the interpolation
 * weight of the context). N-grams of orders 4 and 5 seen fewer than `minCount` times are pruned from the
 * table (their probability then comes from the backoff, as in any pruned back-off model).
 */
import {
  BASE,
  MAX_ORDER,
  OTHER,
  QUANT,
  checkOf,
  keyHash,
  symbolsOf,
  type NgramTable,
} from '../../inference/char-lm.ts';

const POW = [1, BASE, BASE ** 2, BASE ** 3, BASE ** 4, BASE ** 5];

/** Raw n-gram counts of orders 1..5 (index k-1), keyed as `inference/char-lm.ts` keys them. */
export function countNgrams(texts: Iterable<string>, lower: boolean): Map<number, number>[] {
  const raw = Array.from({ length: MAX_ORDER }, () => new Map<number, number>());
  for (const text of texts) {
    const { sym } = symbolsOf(text, lower);
    for (let i = 0; i < sym.length; i++) {
      let key = 0;
      for (let k = 1; k <= MAX_ORDER && i - k + 1 >= 0; k++) {
        key += sym[i - k + 1]! * POW[k - 1]!;
        const m = raw[k - 1]!;
        m.set(key, (m.get(key) ?? 0) + 1);
      }
    }
  }
  return raw;
}

function discounts(counts: Iterable<number>): [number, number, number] {
  const n = [0, 0, 0, 0, 0];
  for (const c of counts) if (c <= 4) n[c]!++;
  const y = n[1]! / (n[1]! + 2 * n[2]! || 1);
  const d = (k: number): number => {
    const v = k - (k + 1) * y * (n[k + 1]! / (n[k]! || 1));
    return Math.min(k, Math.max(0.05, v));
  };
  return [d(1), d(2), d(3)];
}

export interface LmFit {
  /** -log2 p of every n-gram (index k-1). */
  bits: Map<number, number>[];
  /** -log2 of the interpolation weight of every context (the n-gram as context of order k+1). */
  backoff: Map<number, number>[];
  discounts: [number, number, number][];
}

/** Interpolated modified Kneser-Ney over the raw counts. */
export function fitKneserNey(raw: Map<number, number>[]): LmFit {
  const used: Map<number, number>[] = [];
  for (let k = 1; k <= MAX_ORDER; k++) {
    if (k === MAX_ORDER) {
      used.push(raw[k - 1]!);
      continue;
    }
    const cont = new Map<number, number>();
    for (const key of raw[k]!.keys()) {
      const suffix = key % POW[k]!;
      cont.set(suffix, (cont.get(suffix) ?? 0) + 1);
    }
    used.push(cont);
  }
  const bits: Map<number, number>[] = [];
  const backoff: Map<number, number>[] = Array.from({ length: MAX_ORDER }, () => new Map<number, number>());
  const ds: [number, number, number][] = [];
  for (let k = 1; k <= MAX_ORDER; k++) {
    const c = used[k - 1]!;
    const d = discounts(c.values());
    ds.push(d);
    // per context: denominator and the discounted mass
    const denom = new Map<number, number>();
    const mass = new Map<number, number>();
    for (const [key, n] of c) {
      const h = Math.floor(key / BASE);
      denom.set(h, (denom.get(h) ?? 0) + n);
      mass.set(h, (mass.get(h) ?? 0) + d[Math.min(n, 3) - 1]!);
    }
    const gamma = (h: number): number => (mass.get(h) ?? 0) / (denom.get(h) ?? 1);
    const out = new Map<number, number>();
    const lower = k > 1 ? bits[k - 2]! : null;
    const keys = new Set([...raw[k - 1]!.keys()]);
    for (const key of keys) {
      const h = Math.floor(key / BASE);
      const n = c.get(key) ?? 0;
      const lowerP = lower ? 2 ** -(lower.get(key % POW[k - 1]!) ?? 16) : 1 / OTHER;
      const den = denom.get(h);
      const p = den ? Math.max(n - d[Math.min(Math.max(n, 1), 3) - 1]!, 0) / den + gamma(h) * lowerP : lowerP;
      out.set(key, -Math.log2(p));
    }
    if (k === 1) for (let s = 1; s <= OTHER; s++) if (!out.has(s)) out.set(s, -Math.log2(gamma(0) / OTHER));
    bits.push(out);
    if (k >= 2) for (const [h, m] of mass) backoff[k - 2]!.set(h, -Math.log2(m / denom.get(h)!));
  }
  return { bits, backoff, discounts: ds };
}

/** The serving table: every n-gram of orders 1..3, and those of orders 4..5 seen at least `minCount` times. */
export function buildTable(fit: LmFit, raw: Map<number, number>[], minCount: number, load = 0.6): NgramTable {
  const keep: [number, number, number][] = [];
  for (let k = 1; k <= MAX_ORDER; k++) {
    for (const [key, b] of fit.bits[k - 1]!) {
      if (k >= 4 && (raw[k - 1]!.get(key) ?? 0) < minCount) continue;
      keep.push([key, b, fit.backoff[k - 1]!.get(key) ?? 0]);
    }
  }
  let bits = 10;
  while (2 ** bits * load < keep.length) bits++;
  const n = 2 ** bits;
  const t: NgramTable = { bits, check: new Uint16Array(n), surprise: new Uint8Array(n), backoff: new Uint8Array(n) };
  const q = (x: number): number => Math.min(255, Math.max(0, Math.round(x * QUANT)));
  for (const [key, b, bo] of keep) {
    const h = keyHash(key);
    let i = h & (n - 1);
    while (t.check[i] !== 0) i = (i + 1) & (n - 1);
    t.check[i] = checkOf(h);
    t.surprise[i] = q(b);
    t.backoff[i] = q(bo);
  }
  return t;
}
