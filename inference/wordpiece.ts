/**
 * Subword tokenizer shared by training and serving (`wordpiece-v1`): a vocabulary learned with BPE
 * merges over the training split's words, applied WordPiece-style (greedy longest match, `##` marks
 * a piece inside a word) — the same split Hugging Face's WordPiece trainer makes. Byte fallback:
 * a character no piece covers becomes the tokens of its UTF-8 bytes, so no input is ever unknown.
 *
 * Pre-tokenisation: the text is lowercased (String#toLowerCase), then split into words (runs of
 * letters, digits and combining marks), single punctuation/symbol characters and line breaks (a run
 * of `\n` is one `<nl>` token); other whitespace only separates. Words longer than
 * `max_word_chars` are cut into pieces of that length first.
 *
 * Ids: 0 `<pad>`, 1 `<nl>`, 2..257 the bytes `<0x00>`..`<0xFF>`, then the learned pieces.
 */

export interface WordPieceConfig {
  type: 'wordpiece-v1';
  lowercase: true;
  max_word_chars: number;
  continuation_prefix: '##';
  vocab: string[];
}

export const PAD_ID = 0;
export const NL_ID = 1;
const BYTE_BASE = 2;
const SPECIALS = [
  '<pad>',
  '<nl>',
  ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`),
];

const WORD_RE = /[\p{L}\p{N}\p{M}]+|\n+|[^\s\p{L}\p{N}\p{M}]/gu;
const MAX_WORD_CHARS = 48;
const CACHE_LIMIT = 50_000;

/** Pre-tokenised words of a text (line-break runs as "\n"), lowercased. */
export function preTokenize(text: string, maxWordChars: number = MAX_WORD_CHARS): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  WORD_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD_RE.exec(lower)) !== null) {
    const w = m[0];
    if (w.charCodeAt(0) === 10) out.push('\n');
    else if (w.length <= maxWordChars) out.push(w);
    else for (let i = 0; i < w.length; i += maxWordChars) out.push(w.slice(i, i + maxWordChars));
  }
  return out;
}

export class WordPieceTokenizer {
  readonly config: WordPieceConfig;
  readonly vocabSize: number;
  /** piece -> id for word-initial pieces and for continuation pieces (keyed without the `##`). */
  private readonly initial = new Map<string, number>();
  private readonly continuation = new Map<string, number>();
  private readonly maxPiece: number;
  private readonly cache = new Map<string, readonly number[]>();
  private readonly utf8 = new TextEncoder();

  constructor(config: WordPieceConfig) {
    if (config.type !== 'wordpiece-v1') throw new Error(`unsupported tokenizer ${String(config.type)}`);
    const v = config.vocab;
    for (let i = 0; i < SPECIALS.length; i++)
      if (v[i] !== SPECIALS[i]) throw new Error(`tokenizer vocab[${i}] must be ${SPECIALS[i]}`);
    let maxPiece = 1;
    for (let id = SPECIALS.length; id < v.length; id++) {
      const p = v[id] as string;
      if (p.startsWith('##')) this.continuation.set(p.slice(2), id);
      else this.initial.set(p, id);
      maxPiece = Math.max(maxPiece, p.startsWith('##') ? p.length - 2 : p.length);
    }
    this.maxPiece = maxPiece;
    this.config = config;
    this.vocabSize = v.length;
  }

  /** Token ids of a text (no padding, no truncation). */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const w of preTokenize(text, this.config.max_word_chars)) {
      if (w === '\n') {
        out.push(NL_ID);
        continue;
      }
      let ids = this.cache.get(w);
      if (ids === undefined) {
        ids = this.encodeWord(w);
        if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
        this.cache.set(w, ids);
      }
      for (let k = 0; k < ids.length; k++) out.push(ids[k] as number);
    }
    return out;
  }

  /** Greedy longest match; a code point no piece starts with becomes its UTF-8 byte tokens. */
  private encodeWord(w: string): number[] {
    const out: number[] = [];
    let i = 0;
    while (i < w.length) {
      const map = i === 0 ? this.initial : this.continuation;
      let j = Math.min(w.length, i + this.maxPiece);
      let id: number | undefined;
      for (; j > i; j--) {
        id = map.get(w.slice(i, j));
        if (id !== undefined) break;
      }
      if (id !== undefined && j > i) {
        out.push(id);
        i = j;
        continue;
      }
      const cp = w.codePointAt(i) as number;
      const len = cp > 0xffff ? 2 : 1;
      for (const b of this.utf8.encode(w.slice(i, i + len))) out.push(BYTE_BASE + b);
      i += len;
    }
    return out;
  }
}

export interface TrainWordPieceOptions {
  vocabSize: number;
  /** A character enters the alphabet when it occurs at least this often (else it is byte-encoded). */
  minCharCount: number;
  /** Words seen fewer times than this do not take part in merges. */
  minWordCount: number;
  maxWordChars?: number;
}

/**
 * Learns the vocabulary from `texts` with BPE merges over word counts (deterministic: ties broken
 * by the pair's first occurrence order).
 */
export function trainWordPiece(texts: Iterable<string>, opts: TrainWordPieceOptions): WordPieceConfig {
  const maxWordChars = opts.maxWordChars ?? MAX_WORD_CHARS;
  const wordCounts = new Map<string, number>();
  const charCounts = new Map<string, number>();
  for (const t of texts) {
    for (const w of preTokenize(t, maxWordChars)) {
      if (w === '\n') continue;
      wordCounts.set(w, (wordCounts.get(w) ?? 0) + 1);
    }
  }
  for (const [w, c] of wordCounts) for (const ch of w) charCounts.set(ch, (charCounts.get(ch) ?? 0) + c);
  const alphabet = [...charCounts]
    .filter(([, c]) => c >= opts.minCharCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([ch]) => ch);
  const alpha = new Set(alphabet);

  // symbols: id -> string (continuation symbols carry "##")
  const symbols: string[] = [];
  const symId = new Map<string, number>();
  const sym = (s: string): number => {
    let id = symId.get(s);
    if (id === undefined) {
      id = symbols.length;
      symbols.push(s);
      symId.set(s, id);
    }
    return id;
  };
  for (const ch of alphabet) sym(ch);
  for (const ch of alphabet) sym(`##${ch}`);

  // words as symbol sequences (words with an out-of-alphabet char are split around it)
  const words: number[][] = [];
  const counts: number[] = [];
  for (const [w, c] of [...wordCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (c < opts.minWordCount) continue;
    let seq: number[] = [];
    const flush = (): void => {
      if (seq.length > 1) {
        words.push(seq);
        counts.push(c);
      }
      seq = [];
    };
    let first = true;
    for (const ch of w) {
      if (!alpha.has(ch)) {
        flush();
        first = false;
        continue;
      }
      seq.push(sym(first ? ch : `##${ch}`));
      first = false;
    }
    flush();
  }

  const budget = opts.vocabSize - SPECIALS.length;
  const key = (a: number, b: number): number => a * 1_048_576 + b;
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addWord = (wi: number, sign: number): void => {
    const s = words[wi] as number[];
    const c = (counts[wi] as number) * sign;
    for (let k = 0; k + 1 < s.length; k++) {
      const p = key(s[k] as number, s[k + 1] as number);
      const n = (pairCount.get(p) ?? 0) + c;
      if (n > 0) pairCount.set(p, n);
      else pairCount.delete(p);
      if (sign > 0) {
        let set = pairWords.get(p);
        if (!set) pairWords.set(p, (set = new Set()));
        set.add(wi);
      }
    }
  };
  for (let wi = 0; wi < words.length; wi++) addWord(wi, 1);

  while (symbols.length < budget) {
    let best = -1;
    let bestCount = 1;
    for (const [p, c] of pairCount) {
      if (c > bestCount) {
        bestCount = c;
        best = p;
      }
    }
    if (best < 0) break;
    const a = Math.floor(best / 1_048_576);
    const b = best % 1_048_576;
    const merged = sym((symbols[a] as string) + (symbols[b] as string).slice(2));
    for (const wi of pairWords.get(best) ?? []) {
      addWord(wi, -1);
      const s = words[wi] as number[];
      const next: number[] = [];
      for (let k = 0; k < s.length; k++) {
        if (k + 1 < s.length && s[k] === a && s[k + 1] === b) {
          next.push(merged);
          k++;
        } else next.push(s[k] as number);
      }
      words[wi] = next;
      addWord(wi, 1);
    }
    pairCount.delete(best);
    pairWords.delete(best);
  }
  return {
    type: 'wordpiece-v1',
    lowercase: true,
    max_word_chars: maxWordChars,
    continuation_prefix: '##',
    vocab: [...SPECIALS, ...symbols],
  };
}

/**
 * Rows of at most `maxTokens` ids for one text: the whole text when it fits, else overlapping
 * slices (`overlap` tokens shared) so no token goes unseen. Empty for a text without tokens.
 */
export function tokenRows(ids: readonly number[], maxTokens: number, overlap: number): number[][] {
  if (ids.length === 0) return [];
  if (ids.length <= maxTokens) return [ids as number[]];
  const rows: number[][] = [];
  const stride = maxTokens - overlap;
  for (let s = 0; ; s += stride) {
    rows.push(ids.slice(s, s + maxTokens));
    if (s + maxTokens >= ids.length) break;
  }
  return rows;
}
