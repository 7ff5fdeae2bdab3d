/**
 * `js-char-lm` models (pi-suffix): a character 5-gram language model of benign text (interpolated
 * Kneser-Ney stored in backoff form) that measures how surprising a text's characters are. Optimisation
 * attacks (GCG-style token soup) are text no human or document writes; benign prose, code and data are
 * not. Shared by training and serving: the symbol map, the n-gram keys and the table layout live here.
 *
 * Only ASCII positions are scored: benign non-Latin text is "surprising" to a model of mostly-English
 * text and would outscore every attack (measured). Whitespace runs count as one space.
 */
import { runNow, STEP_CHARS, type Steps } from '../lib/steps.ts';
import { maskRunsSteps } from './mask-runs.ts';
import { checkKind, MODELS_DIR, ModelIntegrityError, readVerified, type ModelEntry } from './manifest.ts';

/** Symbols 1..95: printable ASCII from space; 96: any non-ASCII code unit; 0 is "no symbol". */
export const OTHER = 96;
export const BASE = 97;
export const MAX_ORDER = 5;
/** Surprise (bits) and backoff (bits) are quantised in steps of 1/QUANT into one byte. */
export const QUANT = 10;

/** Symbol of one UTF-16 code unit (whitespace and control characters read as a space). */
export function symbolOf(code: number): number {
  if (code > 32 && code < 127) return code - 31;
  if (code >= 128) return OTHER;
  return 1;
}

// Runs that are benign high-entropy formats, not language (URLs, e-mail addresses, hex, base64: mask-runs.ts)
// read as non-ASCII (not scored), in training and serving alike. Digits all read as '0': numbers are data.

/** The text as symbols (whitespace runs collapsed to one space, lower-cased when `lower`) and each symbol's text offset. */
export function symbolsOf(text: string, lower: boolean): { sym: Uint8Array; off: Uint32Array } {
  return runNow(symbolsSteps(text, lower));
}

function* symbolsSteps(text: string, lower: boolean): Steps<{ sym: Uint8Array; off: Uint32Array }> {
  const masked = new Uint8Array(text.length);
  yield* maskRunsSteps(text, masked);
  const sym = new Uint8Array(text.length);
  const off = new Uint32Array(text.length + 1);
  let n = 0;
  for (let from = 0; from < text.length; from += STEP_CHARS) {
    n = symbolsOver(text, lower, masked, sym, off, n, from, Math.min(text.length, from + STEP_CHARS));
    yield;
  }
  off[n] = text.length;
  return { sym: sym.subarray(0, n), off: off.subarray(0, n + 1) };
}

/** symbolsOf's loop over [from, to), `n` symbols written so far; returns the new count. */
function symbolsOver(
  text: string,
  lower: boolean,
  masked: Uint8Array,
  sym: Uint8Array,
  off: Uint32Array,
  n: number,
  from: number,
  to: number,
): number {
  for (let i = from; i < to; i++) {
    let c = text.charCodeAt(i);
    if (lower && c >= 65 && c <= 90) c += 32;
    else if (c > 48 && c <= 57) c = 48;
    const s = masked[i] ? OTHER : symbolOf(c);
    if (s === 1 && n > 0 && sym[n - 1] === 1) continue;
    off[n] = i;
    sym[n++] = s;
  }
  return n;
}

/** 32-bit mix of an n-gram key (an integer < BASE^5 < 2^53); never 0. */
export function keyHash(key: number): number {
  let h = Math.imul((key >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h ^= Math.imul(Math.floor(key / 4294967296) + 0x27d4eb2f, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0 || 1;
}

/**
 * The n-gram table: open addressing over 2^bits slots; slot = low bits of the hash, check = its high
 * 16 bits (0 = empty slot, so a check of 0 is stored as 1). Each slot also holds the quantised surprise
 * of the n-gram and the quantised backoff of the n-gram as a context.
 * File layout: magic "CLM1", uint32 bits, then check[uint16 × 2^bits], surprise[uint8 × 2^bits],
 * backoff[uint8 × 2^bits].
 */
export interface NgramTable {
  bits: number;
  check: Uint16Array;
  surprise: Uint8Array;
  backoff: Uint8Array;
}

export function checkOf(h: number): number {
  return h >>> 16 || 1;
}

/** The slot of hash `h`, or -1 when absent. */
export function findSlot(t: NgramTable, h: number): number {
  const mask = (1 << t.bits) - 1;
  const c = checkOf(h);
  for (let i = h & mask; ; i = (i + 1) & mask) {
    const k = t.check[i]!;
    if (k === 0) return -1;
    if (k === c) return i;
  }
}

export function encodeTable(t: NgramTable): Uint8Array {
  const n = 1 << t.bits;
  const out = new Uint8Array(8 + n * 4);
  const dv = new DataView(out.buffer);
  out.set([0x43, 0x4c, 0x4d, 0x31]);
  dv.setUint32(4, t.bits, true);
  for (let i = 0; i < n; i++) dv.setUint16(8 + i * 2, t.check[i]!, true);
  out.set(t.surprise, 8 + n * 2);
  out.set(t.backoff, 8 + n * 3);
  return out;
}

export function decodeTable(bytes: Uint8Array, id = 'char-lm'): NgramTable {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || dv.getUint32(0, true) !== 0x314d4c43)
    throw new ModelIntegrityError(`model "${id}": bad magic`);
  const bits = dv.getUint32(4, true);
  const n = 2 ** bits;
  if (bits > 26 || bytes.length !== 8 + n * 4)
    throw new ModelIntegrityError(`model "${id}": expected ${8 + n * 4} bytes, got ${bytes.length}`);
  const check = new Uint16Array(n);
  for (let i = 0; i < n; i++) check[i] = dv.getUint16(8 + i * 2, true);
  return {
    bits,
    check,
    surprise: bytes.slice(8 + n * 2, 8 + n * 3),
    backoff: bytes.slice(8 + n * 3, 8 + n * 4),
  };
}

const POW = [1, BASE, BASE ** 2, BASE ** 3, BASE ** 4];

/**
 * Per-symbol surprise (bits) of the model for every symbol of `sym` (0 for symbols that are not scored:
 * non-ASCII). p(c | h) = stored p if the n-gram hc is in the table, else backoff(h) · p(c | shorter h).
 * With `only`, just the positions it marks are looked up (the others are left as they are in `out`):
 * the table lookups are the cost, the n-gram keys are cheap.
 */
export function surprises(
  t: NgramTable,
  sym: Uint8Array,
  unseenBits: number,
  out: Float32Array,
  only?: Uint8Array,
): void {
  runNow(surprisesSteps(t, sym, unseenBits, out, only));
}

function* surprisesSteps(
  t: NgramTable,
  sym: Uint8Array,
  unseenBits: number,
  out: Float32Array,
  only?: Uint8Array,
): Steps<void> {
  // keys of the k-grams ending here and at the previous symbol (the contexts); slots are looked up lazily,
  // highest order first, so a symbol whose 5-gram is in the table costs one lookup.
  const state = { keys: new Float64Array(MAX_ORDER), prev: new Float64Array(MAX_ORDER) };
  for (let from = 0; from < sym.length; from += STEP_CHARS) {
    surprisesOver(t, sym, unseenBits, out, only, from, Math.min(sym.length, from + STEP_CHARS), state);
    yield;
  }
}

/** surprises() over positions [from, to): a plain loop, so the pausing generator costs nothing per symbol. */
function surprisesOver(
  t: NgramTable,
  sym: Uint8Array,
  unseenBits: number,
  out: Float32Array,
  only: Uint8Array | undefined,
  from: number,
  to: number,
  state: { keys: Float64Array; prev: Float64Array },
): void {
  let { keys, prev } = state;
  for (let i = from; i < to; i++) {
    const top = Math.min(MAX_ORDER, i + 1);
    let key = 0;
    for (let k = 1; k <= top; k++) {
      key += sym[i - k + 1]! * POW[k - 1]!;
      keys[k - 1] = key;
    }
    if (only && !only[i]) {
      const swap = prev;
      prev = keys;
      keys = swap;
      continue;
    }
    let bits = 0;
    let found = -1;
    for (let k = top; k >= 1; k--) {
      found = findSlot(t, keyHash(keys[k - 1]!));
      if (found >= 0) break;
      if (k >= 2) {
        const c = findSlot(t, keyHash(prev[k - 2]!));
        if (c >= 0) bits += t.backoff[c]! / QUANT;
      }
    }
    out[i] = sym[i] === OTHER ? 0 : found >= 0 ? bits + t.surprise[found]! / QUANT : bits + unseenBits;
    const swap = prev;
    prev = keys;
    keys = swap;
  }
  state.keys = keys;
  state.prev = prev;
}

export interface CharLmScore {
  /** Max over windows of the mean surprise (bits per ASCII character); 0 when too little ASCII text. */
  bits: number;
  /** [start, end) in the scored text of the best window. */
  start: number;
  end: number;
}

export interface CharLmConfig {
  lower: boolean;
  window: number;
  min_chars: number;
  unseen_bits: number;
  /**
   * Score only punctuation/symbol positions and the position right after one (token soup is made of odd
   * joins; prose in any Latin-script language is letters and spaces, which an English model finds
   * surprising: measured, German/Polish/Turkish prompts fired without it).
   */
  punct_only?: boolean;
}

/** Symbols that are punctuation or symbols (not space, digit, letter or non-ASCII). */
const PUNCT = new Uint8Array(BASE);
for (let c = 33; c < 127; c++) if (!/[0-9A-Za-z]/.test(String.fromCharCode(c))) PUNCT[symbolOf(c)] = 1;

/** The max over `window`-position windows (ASCII positions not right after non-ASCII; with `punct_only` only at and after punctuation) of the mean surprise, with its range. */
export function maxWindowSurprise(t: NgramTable, text: string, cfg: CharLmConfig): CharLmScore {
  return runNow(maxWindowSurpriseSteps(t, text, cfg));
}

function* maxWindowSurpriseSteps(t: NgramTable, text: string, cfg: CharLmConfig): Steps<CharLmScore> {
  const { sym, off } = yield* symbolsSteps(text, cfg.lower);
  const pos = new Int32Array(sym.length);
  let npos = 0;
  // ASCII symbols right after a non-ASCII one (the spaces and commas of Greek or Chinese text) say nothing
  // about the text's language and would make long non-Latin text score like noise: not scored either.
  const punct = cfg.punct_only === true;
  for (let i = 0; i < sym.length; i++) {
    const prev = i > 0 ? sym[i - 1]! : 0;
    if (sym[i] === OTHER || prev === OTHER) continue;
    if (punct && !PUNCT[sym[i]!] && !PUNCT[prev]) continue;
    pos[npos++] = i;
  }
  if (npos < cfg.min_chars) return { bits: 0, start: 0, end: 0 };
  // only the scored positions' surprises are needed (with punct_only, a small share of prose)
  const scored = new Uint8Array(sym.length);
  for (let j = 0; j < npos; j++) scored[pos[j]!] = 1;
  const s = new Float32Array(sym.length);
  yield* surprisesSteps(t, sym, cfg.unseen_bits, s, scored);
  const w = Math.min(cfg.window, npos);
  let sum = 0;
  for (let j = 0; j < w; j++) sum += s[pos[j]!]!;
  let best = sum;
  let bestAt = 0;
  for (let j = w; j < npos; j++) {
    sum += s[pos[j]!]! - s[pos[j - w]!]!;
    if (sum > best) {
      best = sum;
      bestAt = j - w + 1;
    }
  }
  return { bits: best / w, start: off[pos[bestAt]!]!, end: off[pos[bestAt + w - 1]! + 1]! };
}

export interface CharLm {
  readonly entry: ModelEntry;
  readonly config: CharLmConfig;
  score(text: string): CharLmScore;
  /** The same score as steps that may pause (lib/steps.ts): a long text scored paced. */
  scoreSteps(text: string): Steps<CharLmScore>;
}

/** Loads a `js-char-lm` entry (sha256 checked). @throws ModelIntegrityError */
export function loadCharLm(entry: ModelEntry, dir: string = MODELS_DIR): CharLm {
  checkKind(entry, 'text-classification', 'js-char-lm');
  const table = decodeTable(readVerified(entry, dir), entry.id);
  const config = entry.featurizer as unknown as CharLmConfig;
  return {
    entry,
    config,
    score: (text) => maxWindowSurprise(table, text, config),
    scoreSteps: (text) => maxWindowSurpriseSteps(table, text, config),
  };
}
