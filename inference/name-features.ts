/**
 * The case-insensitive name features that `hashed-token-v2` adds to `hashed-token-v1` (token-features.ts):
 * gazetteer classes of the token and its neighbours (name-gazetteer.ts), the words around a name
 * ("hey", "thanks", "my name is"), whether the token sits in an @handle, a #hashtag or an e-mail, and
 * whether the whole text is written without capitals — so a lowercase name in lowercase chat is not
 * judged by the capitalisation cues that news text teaches.
 */
import { fmix32, fnv, FNV_PRIME } from './hashing.ts';
import type { NameGazetteer } from './name-gazetteer.ts';

/** Templates appended to the v1 templates, in this order. */
export const NAME_TEMPLATES = [
  'gaz',
  'gaz-1|gaz',
  'gaz|gaz+1',
  'w-1|gaz',
  'gaz|w+1',
  'w-2|w-1|gaz',
  'handle|gaz',
  'textcase|case|gaz',
] as const;

/**
 * What the name features need of one distinct token text, computed once (the token featurizer keeps
 * it in its token cache): the lowercased word, its capitalisation, its gazetteer class, and the FNV
 * states of the conjunctions that start with the word.
 */
export interface NameTokenInfo {
  lw: string;
  /** `T` title case, `U` all caps, `l` lowercase, `o` other (digits, punctuation, mixed). */
  caseOf: string;
  /** Index of caseOf in CASES (-1: not one of them). */
  ci: number;
  /** Gazetteer class and its index among the classes this featurizer has seen. */
  g: string;
  gi: number;
  /** FNV state of `lw|` under the seeds of `w-1|gaz` and `w-2|w-1|gaz`. */
  asPrev: number;
  asPrev2: number;
}

/** Capitalisation of the whole text: `lower` (no capital letter), `upper` (no small letter), or `mixed`. */
export function textCase(text: string): string {
  let hasUpper = false;
  let hasLower = false;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) {
      ascii = false;
      break;
    }
    if (c >= 65 && c <= 90) hasUpper = true;
    else if (c >= 97 && c <= 122) hasLower = true;
  }
  // ASCII: toLowerCase/toUpperCase change exactly the letters
  if (ascii) return hasUpper ? (hasLower ? 'mixed' : 'upper') : hasLower ? 'lower' : 'none';
  const lower = text.toLowerCase();
  const upper = text.toUpperCase();
  if (lower === upper) return 'none';
  if (text === lower) return 'lower';
  if (text === upper) return 'upper';
  return 'mixed';
}

/**
 * Where a token sits: `@` first word of a handle ("@jsmith"), `#` first word of a hashtag, `@_` / `#_`
 * a later word of one ("@john_smith"), `mail` after the "@" of an e-mail address, `-` elsewhere.
 */
export function handleStates(tokens: readonly { start: number; end: number; text: string }[]): string[] {
  const out = new Array<string>(tokens.length).fill('-');
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    const p = tokens[i - 1]!;
    if (p.end !== t.start) continue;
    if (p.text === '@' || p.text === '#') {
      const glued = i >= 2 && tokens[i - 2]!.end === p.start && /[\p{L}\p{N}]/u.test(tokens[i - 2]!.text);
      out[i] = glued ? (p.text === '@' ? 'mail' : '-') : p.text;
      continue;
    }
    if ((p.text === '_' || p.text === '.' || p.text === '-') && i >= 2 && tokens[i - 2]!.end === p.start) {
      const before = out[i - 2]!;
      if (before === '@' || before === '@_') out[i] = '@_';
      else if (before === '#' || before === '#_') out[i] = '#_';
      else if (before === 'mail') out[i] = 'mail';
    }
  }
  return out;
}

const HANDLE_STATES = ['-', '@', '#', '@_', '#_', 'mail'];
const CASES = ['T', 'U', 'l', 'o'];
const TEXT_CASES = ['lower', 'upper', 'mixed', 'none'];
/** Gazetteer classes with memoised pair ids; a rarer one is hashed each time. */
const MEMO_CLASSES = 64;

/**
 * Computes the {@link NAME_TEMPLATES} feature ids of a text's tokens. The ids are those of hashing each
 * feature string (test/unit/name-features.test.ts holds the string-building oracle); features made of
 * few-valued parts (classes, handle states, cases) are memoised by class index, and conjunctions that
 * start with a word continue the word's cached FNV state.
 */
export class NameFeatures {
  private readonly seeds: number[];
  private readonly classes: string[] = [];
  private readonly classIndex = new Map<string, number>();
  /** Memo per class index (or pair of class indices), -1 = not yet computed. */
  private readonly gazId: Int32Array;
  private readonly pairPrev: Int32Array;
  private readonly pairNext: Int32Array;
  private readonly gazNextState: Int32Array;
  private readonly handleGaz: Int32Array;
  private readonly caseGaz: Int32Array;
  private readonly edgeStart: number;
  private readonly edgeEnd: number;
  private readonly edgePrev: number;
  private readonly edgePrev2: number;

  /** `firstTemplate`: index of 'gaz' among all templates (hash seeds continue the v1 scheme). */
  constructor(
    private readonly gazetteer: NameGazetteer,
    firstTemplate: number,
    private readonly mask: number,
  ) {
    this.seeds = NAME_TEMPLATES.map((_, k) => Math.imul(firstTemplate + k + 1, 0x27d4eb2f));
    const M = MEMO_CLASSES;
    this.gazId = new Int32Array(M).fill(-1);
    this.pairPrev = new Int32Array(M * M).fill(-1);
    this.pairNext = new Int32Array(M * M).fill(-1);
    this.gazNextState = new Int32Array(M);
    this.handleGaz = new Int32Array(HANDLE_STATES.length * M).fill(-1);
    this.caseGaz = new Int32Array(TEXT_CASES.length * CASES.length * M).fill(-1);
    this.edgeStart = this.classIndexOf('<s>');
    this.edgeEnd = this.classIndexOf('</s>');
    this.edgePrev = pipe(fnv(this.seeds[3] as number, '<s>'));
    this.edgePrev2 = pipe(fnv(this.seeds[5] as number, '<s>'));
  }

  /** The name-feature view of one token text (cache it per text). */
  tokenInfo(lw: string, caseOf: string): NameTokenInfo {
    const g = this.gazetteer.classOf(lw);
    return {
      lw,
      caseOf,
      ci: CASES.indexOf(caseOf),
      g,
      gi: this.classIndexOf(g),
      asPrev: pipe(fnv(this.seeds[3] as number, lw)),
      asPrev2: pipe(fnv(this.seeds[5] as number, lw)),
    };
  }

  private classIndexOf(g: string): number {
    let i = this.classIndex.get(g);
    if (i === undefined) {
      i = this.classes.push(g) - 1;
      this.classIndex.set(g, i);
      if (i < MEMO_CLASSES) this.gazNextState[i] = pipe(fnv(this.seeds[4] as number, g));
    }
    return i;
  }

  /** id of the feature string parts.join('|'), hashed by streaming the parts (no string is built) */
  private id(k: number, a: string, b?: string, c?: string): number {
    let h = fnv(this.seeds[k] as number, a);
    if (b !== undefined) h = fnv(pipe(h), b);
    if (c !== undefined) h = fnv(pipe(h), c);
    return fmix32(h) & this.mask;
  }

  /** Template `k`'s id of the class pair (a, b), memoised in `memo`. */
  private pair(memo: Int32Array, k: number, a: number, b: number): number {
    if (a >= MEMO_CLASSES || b >= MEMO_CLASSES) return this.id(k, this.classes[a] as string, this.classes[b] as string);
    const at = a * MEMO_CLASSES + b;
    let v = memo[at] as number;
    if (v < 0) memo[at] = v = this.id(k, this.classes[a] as string, this.classes[b] as string);
    return v;
  }

  /** Writes the ids at columns `col`.. of each token's row (`rowOffset + i`, stride L). */
  featurize(
    text: string,
    tokens: readonly { start: number; end: number; text: string }[],
    infos: readonly NameTokenInfo[],
    ids: Int32Array | Uint32Array,
    rowOffset: number,
    L: number,
    col: number,
  ): void {
    const n = infos.length;
    const M = MEMO_CLASSES;
    const handles = text.includes('@') || text.includes('#') ? handleStates(tokens) : null;
    const tc = textCase(text);
    const tci = TEXT_CASES.indexOf(tc);
    const mask = this.mask;
    for (let i = 0; i < n; i++) {
      const t = infos[i] as NameTokenInfo;
      const p = i > 0 ? (infos[i - 1] as NameTokenInfo) : null;
      const p2 = i > 1 ? (infos[i - 2] as NameTokenInfo) : null;
      const nx = i + 1 < n ? (infos[i + 1] as NameTokenInfo) : null;
      const g = t.g;
      const gi = t.gi;
      const base = (rowOffset + i) * L + col;
      // gaz
      if (gi < M) {
        let v = this.gazId[gi] as number;
        if (v < 0) this.gazId[gi] = v = this.id(0, g);
        ids[base] = v;
      } else ids[base] = this.id(0, g);
      // gaz-1|gaz, gaz|gaz+1
      ids[base + 1] = this.pair(this.pairPrev, 1, p === null ? this.edgeStart : p.gi, gi);
      ids[base + 2] = this.pair(this.pairNext, 2, gi, nx === null ? this.edgeEnd : nx.gi);
      // w-1|gaz
      ids[base + 3] = fmix32(fnv(p === null ? this.edgePrev : p.asPrev, g)) & mask;
      // gaz|w+1
      const wn = nx === null ? '</s>' : nx.lw;
      ids[base + 4] = gi < M ? fmix32(fnv(this.gazNextState[gi] as number, wn)) & mask : this.id(4, g, wn);
      // w-2|w-1|gaz
      const wp = p === null ? '<s>' : p.lw;
      ids[base + 5] = fmix32(fnv(pipe(fnv(p2 === null ? this.edgePrev2 : p2.asPrev2, wp)), g)) & mask;
      // handle|gaz
      const hi = handles === null ? 0 : HANDLE_STATES.indexOf(handles[i] as string);
      if (gi < M && hi >= 0) {
        const at = hi * M + gi;
        let v = this.handleGaz[at] as number;
        if (v < 0) this.handleGaz[at] = v = this.id(6, HANDLE_STATES[hi] as string, g);
        ids[base + 6] = v;
      } else ids[base + 6] = this.id(6, handles?.[i] ?? '-', g);
      // textcase|case|gaz
      const ci = t.ci;
      if (gi < M && tci >= 0 && ci >= 0) {
        const at = (tci * CASES.length + ci) * M + gi;
        let v = this.caseGaz[at] as number;
        if (v < 0) this.caseGaz[at] = v = this.id(7, tc, t.caseOf, g);
        ids[base + 7] = v;
      } else ids[base + 7] = this.id(7, tc, t.caseOf, g);
    }
  }
}

/** FNV-1a state `h` continued over the "|" that joins the parts of a conjunction. */
function pipe(h: number): number {
  return Math.imul(h ^ 0x7c, FNV_PRIME);
}
