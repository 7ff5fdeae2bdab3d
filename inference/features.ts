/**
 * Hashed feature bags, shared by training and serving (deterministic, allocation-light).
 *
 * Text classifiers (`hashed-text-v1`): the text, lowercased per UTF-16 code unit, is split into tokens — runs of letters,
 * digits and combining marks (`\p{L}\p{N}\p{M}`; surrogate halves count as letters, so emoji and
 * astral scripts form words) and runs of up to `punct_run_max` other non-space characters. Features:
 * word unigrams, word bigrams (over all tokens), and character n-grams (`char_ngrams` range) of each
 * word wrapped in boundary markers (`\u0001word\u0002`, first `char_ngram_max_word_chars` chars).
 * Every feature is hashed with FNV-1a 32 (a distinct seed per feature kind); words, punctuation runs
 * and bigrams are finalised with murmur3 fmix32 and masked into `buckets` (a power of two), char
 * n-grams take the top log2(buckets) bits of (FNV state * 0x9e3779b1) (Fibonacci hashing, cheaper). A row's features get value count/sqrt(n), n =
 * number of features emitted, so long texts do not dominate.
 *
 * Token classifier (`hashed-token-v1`): see {@link TokenFeaturizer}.
 */

export interface TextFeaturizerConfig {
  type: 'hashed-text-v1';
  buckets: number;
  lowercase: true;
  word_ngrams: [number, number];
  char_ngrams: [number, number];
  char_ngram_max_word_chars: number;
  punct_run_max: number;
  /** L: at most this many distinct buckets per row for bag models (first occurrences kept). */
  max_features: number;
  weighting: 'count/sqrt(n)';
  hash: 'fnv1a32+fmix32';
}

export function textFeaturizerConfig(buckets: number, maxFeatures: number): TextFeaturizerConfig {
  return {
    type: 'hashed-text-v1',
    buckets,
    lowercase: true,
    word_ngrams: [1, 2],
    char_ngrams: [3, 5],
    char_ngram_max_word_chars: 24,
    punct_run_max: 4,
    max_features: maxFeatures,
    weighting: 'count/sqrt(n)',
    hash: 'fnv1a32+fmix32',
  };
}

// ---------------------------------------------------------------------------------------------
// Hashing

const FNV_PRIME = 0x01000193;
export const SEED_WORD = 0x811c9dc5 | 0;
export const SEED_CHAR = 0x050c5d1f | 0;
export const SEED_PUNCT = 0x2f8b3a6d | 0;
const SEED_BIGRAM = 0x5bd1e995 | 0;
const BIGRAM_MUL = 0x9e3779b1 | 0;
/** Character n-gram buckets use multiplicative (Fibonacci) hashing of the FNV state: top bits. */
const GOLDEN = 0x9e3779b1 | 0;

export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units of `s`, seeded, finalised with fmix32. */
export function hashString(seed: number, s: string): number {
  return fmix32(fnv(seed | 0, s));
}

/** FNV-1a state `h` continued over the code units of `s` (no finalisation): hashes of joined strings stream their parts. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

// ---------------------------------------------------------------------------------------------
// Character classes: 0 = separator (whitespace, controls), 1 = word, 2 = other (punctuation, symbols).

const CLASS = buildClassTable();
/**
 * Per-code-unit lowercase (String#toLowerCase of the single code unit when that is one code unit,
 * else the code unit itself): the same everywhere, independent of locale.
 */
const LOWER = buildLowerTable();

function buildLowerTable(): Uint16Array {
  const t = new Uint16Array(65536);
  for (let c = 0; c < 65536; c++) {
    if (c < 128) t[c] = c >= 65 && c <= 90 ? c + 32 : c;
    else if (c >= 0xd800 && c <= 0xdfff) t[c] = c;
    else {
      const l = String.fromCharCode(c).toLowerCase();
      t[c] = l.length === 1 ? l.charCodeAt(0) : c;
    }
  }
  return t;
}

function buildClassTable(): Uint8Array {
  const t = new Uint8Array(65536);
  const word = /[\p{L}\p{N}\p{M}]/u;
  const sep = /[\s\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u;
  for (let c = 0; c < 65536; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      t[c] = 1;
      continue;
    }
    if (c < 128) {
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) t[c] = 1;
      else if (c <= 32 || c === 127) t[c] = 0;
      else t[c] = 2;
      continue;
    }
    const ch = String.fromCharCode(c);
    t[c] = word.test(ch) ? 1 : sep.test(ch) ? 0 : 2;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// Text featurizer

/**
 * Reusable featurizer. Not re-entrant: the arrays it exposes are scratch space overwritten by the
 * next call (copy them if you keep them).
 */
export class TextFeaturizer {
  readonly config: TextFeaturizerConfig;
  /** Raw bucket of every emitted feature (with repeats), filled by {@link hashes}. */
  raw: Uint32Array;
  /** Distinct buckets / their values, filled by {@link bag}. */
  readonly ids: Int32Array;
  readonly values: Float32Array;
  private readonly mask: number;
  private readonly shift: number;
  private readonly counts: Int32Array;
  private readonly word = new Uint16Array(64);
  private readonly bigrams: boolean;

  constructor(config: TextFeaturizerConfig) {
    if (config.type !== 'hashed-text-v1') throw new Error(`unsupported featurizer ${String(config.type)}`);
    const b = config.buckets;
    if (!Number.isInteger(b) || b < 2 || (b & (b - 1)) !== 0) throw new Error('buckets must be a power of two');
    this.config = config;
    this.mask = b - 1;
    this.shift = 32 - Math.log2(b);
    this.counts = new Int32Array(b);
    this.raw = new Uint32Array(16384);
    this.ids = new Int32Array(config.max_features);
    this.values = new Float32Array(config.max_features);
    if (config.char_ngrams[0] !== 3 || config.char_ngrams[1] !== 5)
      throw new Error('only char_ngrams [3, 5] is implemented');
    if (config.word_ngrams[0] !== 1 || config.word_ngrams[1] > 2)
      throw new Error('word_ngrams must be [1, 1] or [1, 2]');
    this.bigrams = config.word_ngrams[1] >= 2;
    if (config.char_ngram_max_word_chars + 2 > this.word.length) throw new Error('char_ngram_max_word_chars too large');
  }

  /** Emits every feature's bucket into {@link raw}; returns how many. */
  hashes(text: string): number {
    const len = text.length;
    if (this.raw.length < len * 5 + 16) this.raw = new Uint32Array(len * 5 + 1024);
    const out = this.raw;
    const mask = this.mask;
    const shift = this.shift;
    const word = this.word;
    const maxW = this.config.char_ngram_max_word_chars;
    const punctMax = this.config.punct_run_max;
    const bigrams = this.bigrams;
    let n = 0;
    let prev = 0;
    let hasPrev = false;
    let i = 0;
    while (i < len) {
      let c = text.charCodeAt(i);
      const cls = CLASS[c];
      if (cls === 0) {
        i++;
        continue;
      }
      let th: number;
      if (cls === 1) {
        let h = SEED_WORD;
        word[0] = 1;
        let wl = 0;
        for (;;) {
          c = LOWER[c] as number;
          h = Math.imul(h ^ c, FNV_PRIME);
          if (wl < maxW) word[++wl] = c;
          if (++i >= len) break;
          c = text.charCodeAt(i);
          if (CLASS[c] !== 1) break;
        }
        th = fmix32(h);
        // character 3-, 4- and 5-grams of \u0001 word \u0002
        word[wl + 1] = 2;
        const total = wl + 2;
        let p = 0;
        for (; p + 5 <= total; p++) {
          // positions with all three n-gram lengths: no branches
          let g = Math.imul(SEED_CHAR ^ (word[p] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 1] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 2] as number), FNV_PRIME);
          out[n] = Math.imul(g, GOLDEN) >>> shift;
          g = Math.imul(g ^ (word[p + 3] as number), FNV_PRIME);
          out[n + 1] = Math.imul(g, GOLDEN) >>> shift;
          g = Math.imul(g ^ (word[p + 4] as number), FNV_PRIME);
          out[n + 2] = Math.imul(g, GOLDEN) >>> shift;
          n += 3;
        }
        for (; p + 3 <= total; p++) {
          let g = Math.imul(SEED_CHAR ^ (word[p] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 1] as number), FNV_PRIME);
          g = Math.imul(g ^ (word[p + 2] as number), FNV_PRIME);
          out[n++] = Math.imul(g, GOLDEN) >>> shift;
          if (p + 4 <= total) {
            g = Math.imul(g ^ (word[p + 3] as number), FNV_PRIME);
            out[n++] = Math.imul(g, GOLDEN) >>> shift;
          }
        }
      } else {
        let h = SEED_PUNCT;
        let k = 0;
        for (;;) {
          h = Math.imul(h ^ c, FNV_PRIME);
          k++;
          if (++i >= len || k >= punctMax) break;
          c = text.charCodeAt(i);
          if (CLASS[c] !== 2) break;
        }
        th = fmix32(h);
      }
      out[n++] = th & mask;
      if (bigrams && hasPrev) out[n++] = fmix32((Math.imul(prev ^ SEED_BIGRAM, BIGRAM_MUL) + th) | 0) & mask;
      prev = th;
      hasPrev = true;
    }
    return n;
  }

  /**
   * Distinct buckets and their values (count/sqrt(n)) into {@link ids}/{@link values}, in order of
   * first occurrence, at most `max_features`. Returns how many.
   */
  bag(text: string): number {
    const n = this.hashes(text);
    if (n === 0) return 0;
    const raw = this.raw;
    const counts = this.counts;
    const ids = this.ids;
    const L = ids.length;
    const inv = 1 / Math.sqrt(n);
    let u = 0;
    for (let k = 0; k < n; k++) {
      const b = raw[k] as number;
      const c = counts[b] as number;
      if (c === 0 && u < L) ids[u++] = b;
      counts[b] = c + 1;
    }
    const values = this.values;
    for (let j = 0; j < u; j++) values[j] = (counts[ids[j] as number] as number) * inv;
    for (let k = 0; k < n; k++) counts[raw[k] as number] = 0;
    return u;
  }
}

// ---------------------------------------------------------------------------------------------
// Token classification

export interface Token {
  start: number;
  end: number;
  text: string;
}

const TOKEN_RE = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

/** Word tokens (letter/digit runs) and single punctuation/symbol characters, with UTF-16 offsets. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN_RE.exec(text)) !== null) {
    out.push({ start: m.index, end: m.index + m[0].length, text: m[0] });
  }
  return out;
}

export interface TokenFeaturizerConfig {
  type: 'hashed-token-v1';
  buckets: number;
  /** L: features per token (every token has exactly this many). */
  max_features: number;
  tokenizer: string;
  weighting: '1/sqrt(n)';
  hash: 'fnv1a32+fmix32';
  templates: string[];
}

const TOKEN_TEMPLATES = [
  'bias',
  'w',
  'shape',
  'sshape',
  'pre1',
  'pre2',
  'pre3',
  'suf2',
  'suf3',
  'suf4',
  'flags',
  'len',
  'sent_start',
  'nl_before',
  'w-1',
  'sshape-1',
  'w-2',
  'w+1',
  'sshape+1',
  'w+2',
  'w-1|sshape',
  'w|w+1',
  'sshape-1|sshape|sshape+1',
  'w-1|w',
  'lower_w_title_flag',
];

export function tokenFeaturizerConfig(buckets: number): TokenFeaturizerConfig {
  return {
    type: 'hashed-token-v1',
    buckets,
    max_features: TOKEN_TEMPLATES.length,
    tokenizer: TOKEN_RE.source,
    weighting: '1/sqrt(n)',
    hash: 'fnv1a32+fmix32',
    templates: TOKEN_TEMPLATES,
  };
}

function charShape(c: string): string {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return 'd';
  if (code >= 65 && code <= 90) return 'X';
  if (code >= 97 && code <= 122) return 'x';
  if (code < 128) return c;
  const lo = c.toLowerCase();
  const up = c.toUpperCase();
  if (c !== lo) return 'X';
  if (c !== up) return 'x';
  if (/\p{N}/u.test(c)) return 'd';
  if (/\p{L}/u.test(c)) return 'L';
  return c;
}

/** Full shape (first 8 chars mapped X/x/d/L) and short shape (runs collapsed). */
export function wordShapes(w: string): [string, string] {
  let full = '';
  let short = '';
  let last = '';
  for (let i = 0; i < w.length; i++) {
    const s = charShape(w[i] as string);
    if (i < 8) full += s;
    if (s !== last) short += s;
    last = s;
  }
  if (w.length > 8) full += '+';
  return [full, short];
}

/**
 * Hashed features of each token in context (see TOKEN_TEMPLATES): lowercased word, word shapes,
 * prefixes/suffixes, capitalisation flags, length bucket, sentence start / newline before, the
 * previous/next words and shapes, and a few conjunctions. Each token gets exactly the same number of
 * features, value 1/sqrt(n).
 *
 * Feature k is FNV-1a of its string under seed (k + 1) * 0x27d4eb2f, finalised with fmix32. What
 * depends on a token alone (its own features, and its features as a neighbour) is computed once per
 * distinct token text and kept in a bounded cache; the conjunctions are hashed by streaming their
 * parts through FNV, so no feature string is ever built. The ids are exactly those of hashing each
 * feature string (test/unit/models-token-features.test.ts holds the string-building oracle).
 */
export class TokenFeaturizer {
  readonly config: TokenFeaturizerConfig;
  private readonly mask: number;
  private readonly cache = new Map<string, TokenInfo>();
  /** Ids of features whose string takes few values: bias, sentence start, newline before, title flags. */
  private readonly bias: number;
  private readonly sentStartId: [number, number];
  private readonly nlBeforeId: [number, number];
  private readonly titleFlagId: Int32Array;
  /** Neighbour ids at the text's edges ('<s>' before the first token, '</s>' after the last). */
  private readonly edge: { w1: number; s1: number; w2: number; wn1: number; sn1: number; wn2: number };

  constructor(config: TokenFeaturizerConfig) {
    if (config.type !== 'hashed-token-v1') throw new Error(`unsupported featurizer ${String(config.type)}`);
    if (config.max_features < TOKEN_TEMPLATES.length) throw new Error('max_features too small');
    this.config = config;
    this.mask = config.buckets - 1;
    const id = (k: number, s: string) => hashString(TEMPLATE_SEED[k] as number, s) & this.mask;
    this.bias = id(T.bias, '');
    this.sentStartId = [id(T.sentStart, '0'), id(T.sentStart, '1')];
    this.nlBeforeId = [id(T.nlBefore, '0'), id(T.nlBefore, '1')];
    this.titleFlagId = new Int32Array(8);
    for (let b = 0; b < 8; b++) this.titleFlagId[b] = id(T.titleFlag, `${(b >> 2) & 1}|${(b >> 1) & 1}|${b & 1}`);
    this.edge = {
      w1: id(T.wPrev, '<s>'),
      s1: id(T.sPrev, '<s>'),
      w2: id(T.wPrev2, '<s>'),
      wn1: id(T.wNext, '</s>'),
      sn1: id(T.sNext, '</s>'),
      wn2: id(T.wNext2, '</s>'),
    };
  }

  get featuresPerToken(): number {
    return TOKEN_TEMPLATES.length;
  }

  /**
   * Writes tokens' features into ids/values at row stride `config.max_features`, starting at row
   * `rowOffset`. Unused slots of a row are left as they are (callers zero-fill).
   */
  featurize(
    text: string,
    tokens: Token[],
    ids: Int32Array | Uint32Array,
    values: Float32Array,
    rowOffset: number,
  ): void {
    const L = this.config.max_features;
    const n = tokens.length;
    const infos: TokenInfo[] = new Array(n);
    for (let i = 0; i < n; i++) infos[i] = this.info((tokens[i] as Token).text);
    const val = 1 / Math.sqrt(TOKEN_TEMPLATES.length);
    const mask = this.mask;
    const edge = this.edge;
    for (let i = 0; i < n; i++) {
      const t = infos[i] as TokenInfo;
      const p = i > 0 ? (infos[i - 1] as TokenInfo) : null;
      const p2 = i > 1 ? (infos[i - 2] as TokenInfo) : null;
      const nx = i + 1 < n ? (infos[i + 1] as TokenInfo) : null;
      const nx2 = i + 2 < n ? (infos[i + 2] as TokenInfo) : null;
      let nlBefore = i === 0;
      if (!nlBefore) {
        const to = (tokens[i] as Token).start;
        for (let c = (tokens[i - 1] as Token).end; c < to; c++) {
          if (text.charCodeAt(c) === 10) {
            nlBefore = true;
            break;
          }
        }
      }
      const sentStart = p === null || nlBefore || p.endsSentence;
      const prevW = p === null ? '<s>' : p.lw;
      const prevS = p === null ? '<s>' : p.ss;
      const nextW = nx === null ? '</s>' : nx.lw;
      const nextS = nx === null ? '</s>' : nx.ss;
      const base = (rowOffset + i) * L;
      ids[base] = this.bias;
      const own = t.own;
      for (let k = 1; k <= OWN_LAST; k++) ids[base + k] = own[k] as number;
      ids[base + T.sentStart] = this.sentStartId[sentStart ? 1 : 0];
      ids[base + T.nlBefore] = this.nlBeforeId[nlBefore ? 1 : 0];
      ids[base + T.wPrev] = p === null ? edge.w1 : p.asPrev;
      ids[base + T.sPrev] = p === null ? edge.s1 : p.asPrevShape;
      ids[base + T.wPrev2] = p2 === null ? edge.w2 : p2.asPrev2;
      ids[base + T.wNext] = nx === null ? edge.wn1 : nx.asNext;
      ids[base + T.sNext] = nx === null ? edge.sn1 : nx.asNextShape;
      ids[base + T.wNext2] = nx2 === null ? edge.wn2 : nx2.asNext2;
      ids[base + T.wPrevShape] = fmix32(fnv(pipe(fnv(SEED_W_PREV_SHAPE, prevW)), t.ss)) & mask;
      ids[base + T.wWNext] = fmix32(fnv(pipe(fnv(SEED_W_W_NEXT, t.lw)), nextW)) & mask;
      ids[base + T.shapes3] = fmix32(fnv(pipe(fnv(pipe(fnv(SEED_SHAPES3, prevS)), t.ss)), nextS)) & mask;
      ids[base + T.wPrevW] = fmix32(fnv(pipe(fnv(SEED_W_PREV_W, prevW)), t.lw)) & mask;
      ids[base + T.titleFlag] = this.titleFlagId[
        (sentStart ? 4 : 0) | (t.isTitle ? 2 : 0) | (t.isLower ? 1 : 0)
      ] as number;
      values.fill(val, base, base + TOKEN_TEMPLATES.length);
    }
  }

  /** What a token's text alone decides, from the cache (bounded: cleared when full). */
  private info(raw: string): TokenInfo {
    let info = this.cache.get(raw);
    if (info !== undefined) return info;
    if (this.cache.size >= TOKEN_CACHE_MAX) this.cache.clear();
    info = tokenInfo(raw, this.mask);
    this.cache.set(raw, info);
    return info;
  }
}

/** Template indices (positions in TOKEN_TEMPLATES). */
const T = {
  bias: 0,
  w: 1,
  shape: 2,
  sshape: 3,
  pre1: 4,
  pre2: 5,
  pre3: 6,
  suf2: 7,
  suf3: 8,
  suf4: 9,
  flags: 10,
  len: 11,
  sentStart: 12,
  nlBefore: 13,
  wPrev: 14,
  sPrev: 15,
  wPrev2: 16,
  wNext: 17,
  sNext: 18,
  wNext2: 19,
  wPrevShape: 20,
  wWNext: 21,
  shapes3: 22,
  wPrevW: 23,
  titleFlag: 24,
} as const;
/** Templates 1..OWN_LAST depend on the token's own text only. */
const OWN_LAST = T.len;
const TEMPLATE_SEED = TOKEN_TEMPLATES.map((_, k) => Math.imul(k + 1, 0x27d4eb2f));
const SEED_W_PREV_SHAPE = TEMPLATE_SEED[T.wPrevShape] as number;
const SEED_W_W_NEXT = TEMPLATE_SEED[T.wWNext] as number;
const SEED_SHAPES3 = TEMPLATE_SEED[T.shapes3] as number;
const SEED_W_PREV_W = TEMPLATE_SEED[T.wPrevW] as number;
const TOKEN_CACHE_MAX = 20_000;

/** FNV-1a state `h` continued over the "|" that joins the parts of a conjunction. */
function pipe(h: number): number {
  return Math.imul(h ^ 0x7c, FNV_PRIME);
}

interface TokenInfo {
  lw: string;
  ss: string;
  /** Ids of templates 1..OWN_LAST (index = template; 0 unused). */
  own: Int32Array;
  asPrev: number;
  asPrevShape: number;
  asPrev2: number;
  asNext: number;
  asNextShape: number;
  asNext2: number;
  isTitle: boolean;
  isLower: boolean;
  /** The token is ".", "!", "?" or ":": the next one starts a sentence. */
  endsSentence: boolean;
}

function tokenInfo(raw: string, mask: number): TokenInfo {
  const id = (k: number, s: string) => hashString(TEMPLATE_SEED[k] as number, s) & mask;
  const w = raw.toLowerCase();
  const [fs, ss] = wordShapes(raw);
  const isWord = CLASS[raw.charCodeAt(0)] === 1;
  const first = raw.charAt(0);
  const isTitle = isWord && first !== first.toLowerCase() && raw.slice(1) === raw.slice(1).toLowerCase();
  const isUpper = isWord && raw.length > 1 && raw === raw.toUpperCase() && raw !== w;
  const isLower = isWord && raw === w && raw !== raw.toUpperCase();
  const hasDigit = /\d/.test(raw);
  const flags = `${isWord ? 'w' : 'p'}${isTitle ? 'T' : ''}${isUpper ? 'U' : ''}${isLower ? 'l' : ''}${hasDigit ? 'd' : ''}`;
  const len = raw.length;
  const lenB = len <= 3 ? String(len) : len <= 5 ? '4-5' : len <= 8 ? '6-8' : '9+';
  const own = new Int32Array(OWN_LAST + 1);
  own[T.w] = id(T.w, w);
  own[T.shape] = id(T.shape, fs);
  own[T.sshape] = id(T.sshape, ss);
  own[T.pre1] = id(T.pre1, w.slice(0, 1));
  own[T.pre2] = id(T.pre2, w.slice(0, 2));
  own[T.pre3] = id(T.pre3, w.slice(0, 3));
  own[T.suf2] = id(T.suf2, w.length > 2 ? w.slice(-2) : '');
  own[T.suf3] = id(T.suf3, w.length > 3 ? w.slice(-3) : '');
  own[T.suf4] = id(T.suf4, w.length > 4 ? w.slice(-4) : '');
  own[T.flags] = id(T.flags, flags);
  own[T.len] = id(T.len, lenB);
  return {
    lw: w,
    ss,
    own,
    asPrev: id(T.wPrev, w),
    asPrevShape: id(T.sPrev, ss),
    asPrev2: id(T.wPrev2, w),
    asNext: id(T.wNext, w),
    asNextShape: id(T.sNext, ss),
    asNext2: id(T.wNext2, w),
    isTitle,
    isLower,
    endsSentence: w === '.' || w === '!' || w === '?' || w === ':',
  };
}
