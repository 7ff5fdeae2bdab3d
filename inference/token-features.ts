/**
 * Token classifier features, shared by training and serving: the tokenizer (word runs and single
 * punctuation characters, with UTF-16 offsets) and {@link TokenFeaturizer}. Two versions:
 * `hashed-token-v1` (word, shapes, affixes, context words) and `hashed-token-v2` = v1 + the
 * case-insensitive name features of name-features.ts, which need the gazetteer the config names.
 */
import { CLASS, fmix32, fnv, FNV_PRIME, hashString } from './hashing.ts';
import { TOKEN_RE, type Token } from './tokenize.ts';
import { NAME_TEMPLATES, NameFeatures, type NameTokenInfo } from './name-features.ts';
import { loadGazetteer, type GazetteerAsset, type NameGazetteer } from './name-gazetteer.ts';

export { tokenize, TOKEN_RE, type Token } from './tokenize.ts';

export interface TokenFeaturizerConfig {
  type: 'hashed-token-v1' | 'hashed-token-v2';
  buckets: number;
  /** L: features per token (every token has exactly this many). */
  max_features: number;
  tokenizer: string;
  weighting: '1/sqrt(n)';
  hash: 'fnv1a32+fmix32';
  templates: string[];
  /** v2 only: the name gazetteer file (relative to the models dir) and its sha256. */
  gazetteer?: GazetteerAsset;
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

/** A v1 config, or with a gazetteer asset a v2 config (v1 templates + {@link NAME_TEMPLATES}). */
export function tokenFeaturizerConfig(buckets: number, gazetteer?: GazetteerAsset): TokenFeaturizerConfig {
  const templates = gazetteer ? [...TOKEN_TEMPLATES, ...NAME_TEMPLATES] : TOKEN_TEMPLATES;
  return {
    type: gazetteer ? 'hashed-token-v2' : 'hashed-token-v1',
    buckets,
    max_features: templates.length,
    tokenizer: TOKEN_RE.source,
    weighting: '1/sqrt(n)',
    hash: 'fnv1a32+fmix32',
    templates,
    ...(gazetteer ? { gazetteer } : {}),
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
  /** v2: the name features; null for v1. */
  private readonly nameFeatures: NameFeatures | null;
  private readonly templateCount: number;
  /** Scratch per-token views, reused by every call (featurize is synchronous). */
  private infos: TokenInfo[] = [];
  private names: NameTokenInfo[] = [];

  /**
   * A v2 config needs its gazetteer: passed in (training), or read from `modelsDir` and checked against
   * the config's sha256.
   * @throws on an unknown featurizer type, a template list that is not this version's, or a gazetteer
   * file that is not the one the config pins
   */
  constructor(config: TokenFeaturizerConfig, gazetteer?: NameGazetteer, modelsDir?: string) {
    const want =
      config.type === 'hashed-token-v1'
        ? TOKEN_TEMPLATES
        : config.type === 'hashed-token-v2'
          ? [...TOKEN_TEMPLATES, ...NAME_TEMPLATES]
          : null;
    if (want === null) throw new Error(`unsupported featurizer ${String(config.type)}`);
    if (config.templates !== undefined && config.templates.join(',') !== want.join(','))
      throw new Error(`featurizer ${config.type}: templates differ from this code's`);
    if (config.max_features < want.length) throw new Error('max_features too small');
    this.templateCount = want.length;
    if (config.type === 'hashed-token-v2') {
      if (!gazetteer && !config.gazetteer) throw new Error('hashed-token-v2 needs a gazetteer');
      const g = gazetteer ?? loadGazetteer(config.gazetteer as GazetteerAsset, modelsDir);
      this.nameFeatures = new NameFeatures(g, TOKEN_TEMPLATES.length, config.buckets - 1);
    } else this.nameFeatures = null;
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
    return this.templateCount;
  }

  /**
   * Writes tokens' features into ids/values at row stride `config.max_features`, starting at row
   * `rowOffset`. Unused slots of a row are left as they are (callers zero-fill). Without `values`
   * only the ids are written (every feature's value is 1/sqrt(featuresPerToken)).
   */
  featurize(
    text: string,
    tokens: Token[],
    ids: Int32Array | Uint32Array,
    values: Float32Array | undefined,
    rowOffset: number,
  ): void {
    const L = this.config.max_features;
    const n = tokens.length;
    const infos = this.infos;
    infos.length = n;
    for (let i = 0; i < n; i++) infos[i] = this.info((tokens[i] as Token).text);
    const val = 1 / Math.sqrt(this.templateCount);
    const mask = this.mask;
    const edge = this.edge;
    let prevEnd = -1;
    for (let i = 0; i < n; i++) {
      const t = infos[i] as TokenInfo;
      const p = i > 0 ? (infos[i - 1] as TokenInfo) : null;
      const p2 = i > 1 ? (infos[i - 2] as TokenInfo) : null;
      const nx = i + 1 < n ? (infos[i + 1] as TokenInfo) : null;
      const nx2 = i + 2 < n ? (infos[i + 2] as TokenInfo) : null;
      const tok = tokens[i] as Token;
      let nlBefore = i === 0;
      if (!nlBefore) {
        const to = tok.start;
        for (let c = prevEnd; c < to; c++) {
          if (text.charCodeAt(c) === 10) {
            nlBefore = true;
            break;
          }
        }
      }
      prevEnd = tok.end;
      const sentStart = p === null || nlBefore || p.endsSentence;
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
      // conjunctions: the first part's FNV state is cached with its token (edge states for <s>)
      ids[base + T.wPrevShape] = fmix32(fnv(p === null ? EDGE_W_PREV_SHAPE : p.stWPrevShape, t.ss)) & mask;
      ids[base + T.wWNext] = fmix32(fnv(t.stWWNext, nextW)) & mask;
      ids[base + T.shapes3] = fmix32(fnv(pipe(fnv(p === null ? EDGE_SHAPES3 : p.stShapes3, t.ss)), nextS)) & mask;
      ids[base + T.wPrevW] = fmix32(fnv(p === null ? EDGE_W_PREV_W : p.stWPrevW, t.lw)) & mask;
      ids[base + T.titleFlag] = this.titleFlagId[
        (sentStart ? 4 : 0) | (t.isTitle ? 2 : 0) | (t.isLower ? 1 : 0)
      ] as number;
      values?.fill(val, base, base + this.templateCount);
    }
    if (this.nameFeatures === null) return;
    const names = this.names;
    names.length = n;
    for (let i = 0; i < n; i++) names[i] = (infos[i] as TokenInfo).name as NameTokenInfo;
    this.nameFeatures.featurize(text, tokens, names, ids, rowOffset, L, TOKEN_TEMPLATES.length);
  }

  /** What a token's text alone decides, from the cache (bounded: cleared when full). */
  private info(raw: string): TokenInfo {
    let info = this.cache.get(raw);
    if (info !== undefined) return info;
    if (this.cache.size >= TOKEN_CACHE_MAX) this.cache.clear();
    info = tokenInfo(raw, this.mask, this.nameFeatures);
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
/** FNV states of the conjunctions' first part ("<s>|") before the first token. */
const EDGE_W_PREV_SHAPE = pipe(fnv(SEED_W_PREV_SHAPE, '<s>'));
const EDGE_SHAPES3 = pipe(fnv(SEED_SHAPES3, '<s>'));
const EDGE_W_PREV_W = pipe(fnv(SEED_W_PREV_W, '<s>'));

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
  /** `T` title case, `U` all caps, `l` lowercase, `o` other (name-features.ts). */
  caseOf: string;
  /** The token is ".", "!", "?" or ":": the next one starts a sentence. */
  endsSentence: boolean;
  /** FNV states of "part|" for the conjunctions whose first part is this token's word or shape. */
  stWPrevShape: number;
  stWWNext: number;
  stShapes3: number;
  stWPrevW: number;
  /** v2: the name features' view of this token (null for v1). */
  name: NameTokenInfo | null;
}

function tokenInfo(raw: string, mask: number, names: NameFeatures | null): TokenInfo {
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
  const caseOf = isTitle ? 'T' : isUpper ? 'U' : isLower ? 'l' : 'o';
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
    caseOf,
    endsSentence: w === '.' || w === '!' || w === '?' || w === ':',
    stWPrevShape: pipe(fnv(SEED_W_PREV_SHAPE, w)),
    stWWNext: pipe(fnv(SEED_W_W_NEXT, w)),
    stShapes3: pipe(fnv(SEED_SHAPES3, ss)),
    stWPrevW: pipe(fnv(SEED_W_PREV_W, w)),
    name: names === null ? null : names.tokenInfo(w, caseOf),
  };
}
