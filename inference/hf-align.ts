/**
 * Character offsets for the tokens `@huggingface/tokenizers` returns (it gives token strings, no
 * offsets): each token's surface — WordPiece's `##` stripped, SentencePiece's `▁` read as a space,
 * byte-level BPE's characters mapped back to bytes and UTF-8 decoded — is searched forward from a
 * cursor in a folded copy of the text (NFKD, nonspacing marks removed, lower case, whitespace and
 * control characters as spaces) that maps back to the original UTF-16 offsets. A WordPiece unknown
 * token stands for one whole pre-tokenizer word and takes it; a token with no text of its own (a
 * partial UTF-8 byte, an unknown token of another model) or one the search misses takes its share
 * of the gap between its found neighbours. The search looks ahead a bounded distance (longer while
 * tokens go unplaced), so a long text costs linear time whatever it holds.
 */

import { ASCII_SPACE, codePoints, Folder, isLowSurrogate, isSpace, wordEnd, type Cp } from './hf-fold.ts';

/** What the surface of a token depends on, read from tokenizer.json. */
export interface SurfaceRules {
  /** the continuing-subword prefix of a WordPiece model (`##`), else null */
  wordPiecePrefix: string | null;
  /** the model's unknown token where the model emits that string (WordPiece, BPE) */
  unkToken: string | null;
  /** the Metaspace replacement character (`▁`), else null */
  metaspace: string | null;
  byteLevel: boolean;
  /** BPE suffixes to strip (`</w>`, continuing-subword suffixes) */
  suffixes: string[];
  /** added tokens (special or not): they stand in the text as written */
  added: Set<string>;
}

/** How far past the usual look-ahead a search may go after unplaced tokens (characters). */
const MAX_DEBT = 1024;

interface Surface {
  /** trimmed and folded surface; '' for a whitespace token; null when the token has no text of its own */
  text: string | null;
  /** byte-level tokens: how many UTF-8 bytes (whitespace aside) the token stands for */
  bytes: number;
  headPartial: boolean;
  tailPartial: boolean;
  /** WordPiece's unknown token: one whole pre-tokenizer word */
  unkWord: boolean;
}

interface JsonNode {
  type?: string;
  replacement?: string;
  pretokenizers?: JsonNode[];
  decoders?: JsonNode[];
  normalizers?: JsonNode[];
  pattern?: { String?: string };
  content?: string;
}

/** Every node of a (possibly Sequence) pre-tokenizer / decoder / normalizer. */
function nodes(n: JsonNode | null | undefined): JsonNode[] {
  if (!n) return [];
  return [n, ...[...(n.pretokenizers ?? []), ...(n.decoders ?? []), ...(n.normalizers ?? [])].flatMap(nodes)];
}

/** The surface rules of a tokenizer.json. */
export function surfaceRules(json: Record<string, unknown>): SurfaceRules {
  const model = (json.model ?? {}) as Record<string, unknown>;
  const parts = [
    ...nodes(json.pre_tokenizer as JsonNode),
    ...nodes(json.decoder as JsonNode),
    ...nodes(json.normalizer as JsonNode),
  ];
  const type = (model.type as string | undefined) ?? (Array.isArray(model.vocab) ? 'Unigram' : model.merges ? 'BPE' : 'WordPiece'); // prettier-ignore
  const meta = parts.find((p) => p.type === 'Metaspace');
  // Llama-style SentencePiece BPE writes spaces as ▁ with a Replace normalizer instead of a pre-tokenizer
  const replaced = parts.some((p) => p.type === 'Replace' && p.pattern?.String === ' ' && p.content === '\u2581');
  const added = new Set<string>();
  for (const t of (json.added_tokens ?? []) as { content: string }[]) added.add(t.content);
  return {
    wordPiecePrefix: type === 'WordPiece' ? ((model.continuing_subword_prefix as string | undefined) ?? '##') : null,
    unkToken: type === 'Unigram' ? null : ((model.unk_token as string | null | undefined) ?? null),
    metaspace: meta ? (meta.replacement ?? '\u2581') : replaced ? '\u2581' : null,
    byteLevel: parts.some((p) => p.type === 'ByteLevel'),
    suffixes: [model.end_of_word_suffix, model.continuing_subword_suffix].filter(
      (s): s is string => typeof s === 'string' && s.length > 0,
    ),
    added,
  };
}

/** Aligns the token strings of one tokenizer with the texts they came from. */
export class Aligner {
  private readonly surfaces = new Map<string, Surface>();
  private readonly folder = new Folder();
  private readonly byteOf: Map<string, number> | null;

  constructor(private readonly rules: SurfaceRules) {
    this.byteOf = rules.byteLevel ? byteDecoder() : null;
  }

  /** Per token, its [start, end) in `text` (UTF-16); whitespace tokens get an empty span. */
  align(text: string, tokens: readonly string[]): { starts: Int32Array; ends: Int32Array } {
    const F = this.folder.fold(text);
    const n = tokens.length;
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    const pending: number[] = [];
    const pendingSurfaces: Surface[] = [];
    const blank: number[] = [];
    let cursor = 0;
    let lastEnd = 0;
    let debt = 0;
    const orig = (k: number): number => (k < F.s.length ? (F.start[k] as number) : text.length);
    const place = (t: number, s: number, e: number): void => {
      if (pending.length) this.shareGap(text, lastEnd, s, pending, pendingSurfaces, starts, ends);
      pending.length = 0;
      pendingSurfaces.length = 0;
      starts[t] = s;
      ends[t] = e;
      lastEnd = Math.max(lastEnd, e);
      debt = 0;
    };
    for (let t = 0; t < n; t++) {
      const sf = this.surface(tokens[t] as string);
      if (sf.text === '') {
        blank.push(t);
        continue;
      }
      while (F.s.charCodeAt(cursor) === 32) cursor++;
      if (sf.unkWord) {
        let e = wordEnd(F.s, cursor);
        // a character that folds to several (‼ → !!) stays whole
        while (e > cursor && e < F.s.length && F.start[e] === F.start[e - 1]) e++;
        if (e > cursor) {
          place(t, orig(cursor), F.end[e - 1] as number);
          cursor = e;
          continue;
        }
      }
      const found = sf.text === null ? -1 : this.find(F.s, sf.text, cursor, debt);
      if (found < 0) {
        pending.push(t);
        pendingSurfaces.push(sf);
        // look further while tokens go unplaced, up to a bound that keeps a long text linear
        debt = Math.min(MAX_DEBT, debt + (sf.text === null ? 32 : sf.text.length + 16));
        continue;
      }
      const b = found + (sf.text as string).length;
      let s = F.start[found] as number;
      let e = F.end[b - 1] as number;
      if (sf.headPartial && s > 0 && !isSpace(text, s - 1)) s -= isLowSurrogate(text, s - 1) ? 2 : 1;
      if (sf.tailPartial && e < text.length && !isSpace(text, e)) e += (text.codePointAt(e) as number) > 0xffff ? 2 : 1;
      place(t, s, e);
      cursor = b;
    }
    if (pending.length) this.shareGap(text, lastEnd, text.length, pending, pendingSurfaces, starts, ends);
    // whitespace tokens: an empty span where the next token starts (the word they mark the start of)
    for (let k = blank.length - 1; k >= 0; k--) {
      const t = blank[k] as number;
      starts[t] = ends[t] = t + 1 < n ? (starts[t + 1] as number) : text.length;
    }
    return { starts, ends };
  }

  /** Where `needle` starts at or after `from` within the look-ahead, or -1. */
  private find(hay: string, needle: string, from: number, debt: number): number {
    const limit = Math.min(hay.length, from + 64 + debt + needle.length);
    const at = hay.slice(from, limit).indexOf(needle);
    return at < 0 ? -1 : from + at;
  }

  /**
   * Tokens without a place of their own share the gap [from, to) between their found neighbours
   * (whitespace trimmed): by UTF-8 bytes where they are byte-level pieces that add up to the gap, else
   * one whitespace-separated piece or one code point each where the counts match, else all of it each.
   */
  private shareGap(
    text: string,
    from: number,
    to: number,
    tokens: number[],
    surfaces: Surface[],
    starts: Int32Array,
    ends: Int32Array,
  ): void {
    let a = from;
    let b = to;
    while (a < b && isSpace(text, a)) a++;
    while (b > a && isSpace(text, b - 1)) b--;
    const set = (i: number, s: number, e: number): void => {
      while (s < e && isSpace(text, s)) s++;
      while (e > s && isSpace(text, e - 1)) e--;
      starts[tokens[i] as number] = s;
      ends[tokens[i] as number] = e > s ? e : s;
    };
    if (surfaces.every((s) => s.bytes > 0)) {
      const total = surfaces.reduce((x, s) => x + s.bytes, 0);
      // the gap's bytes as the tokens count them: everything but ASCII whitespace
      const cps = codePoints(text, a, b).filter((c) => !ASCII_SPACE.has(text.charCodeAt(c.start)));
      if (cps.reduce((x, c) => x + c.bytes, 0) === total) {
        let k = 0;
        let used = 0; // bytes of cps[k] already given out
        for (let i = 0; i < surfaces.length; i++) {
          let need = (surfaces[i] as Surface).bytes;
          const s = cps[k]?.start ?? b;
          let e = s;
          while (need > 0 && k < cps.length) {
            const take = Math.min(need, (cps[k] as Cp).bytes - used);
            need -= take;
            used += take;
            e = (cps[k] as Cp).end;
            if (used === (cps[k] as Cp).bytes) {
              k++;
              used = 0;
            }
          }
          set(i, s, e);
        }
        return;
      }
    }
    const gap = text.slice(a, b);
    const pieces = gap.split(/\s+/).filter(Boolean);
    if (pieces.length === tokens.length) {
      let p = a;
      pieces.forEach((piece, i) => {
        const s = text.indexOf(piece, p);
        set(i, s, s + piece.length);
        p = s + piece.length;
      });
      return;
    }
    const cps = codePoints(text, a, b).filter((c) => !isSpace(text, c.start));
    if (cps.length === tokens.length) {
      cps.forEach((c, i) => set(i, c.start, c.end));
      return;
    }
    for (let i = 0; i < tokens.length; i++) set(i, a, b);
  }

  private surface(token: string): Surface {
    let sf = this.surfaces.get(token);
    if (sf) return sf;
    sf = this.computeSurface(token);
    if (this.surfaces.size > 50_000) this.surfaces.clear();
    this.surfaces.set(token, sf);
    return sf;
  }

  private computeSurface(token: string): Surface {
    const r = this.rules;
    const plain = (s: string): Surface => {
      const text = this.folder.foldString(s).trim();
      return { text, bytes: 0, headPartial: false, tailPartial: false, unkWord: false };
    };
    if (r.added.has(token) && token !== r.unkToken) return plain(token);
    if (r.wordPiecePrefix !== null) {
      if (token === r.unkToken) return { text: null, bytes: 0, headPartial: false, tailPartial: false, unkWord: true };
      return plain(token.startsWith(r.wordPiecePrefix) ? token.slice(r.wordPiecePrefix.length) : token);
    }
    if (token === r.unkToken) return { text: null, bytes: 0, headPartial: false, tailPartial: false, unkWord: false };
    if (/^<0x[0-9A-Fa-f]{2}>$/.test(token)) return { text: null, bytes: 1, headPartial: true, tailPartial: true, unkWord: false }; // prettier-ignore
    let s = token;
    for (const suffix of r.suffixes) if (s.endsWith(suffix)) s = s.slice(0, -suffix.length);
    if (this.byteOf) return this.byteSurface(s);
    if (r.metaspace) s = s.split(r.metaspace).join(' ');
    return plain(s);
  }

  /** A byte-level token: its complete UTF-8 characters; partial ones at either end flagged. */
  private byteSurface(token: string): Surface {
    const bytes: number[] = [];
    for (const ch of token) {
      const b = (this.byteOf as Map<string, number>).get(ch);
      if (b === undefined) return { ...this.computePlain(token), bytes: 0 };
      bytes.push(b);
    }
    let head = 0;
    while (head < bytes.length && ((bytes[head] as number) & 0xc0) === 0x80) head++;
    let tail = bytes.length;
    // a lead byte whose sequence runs past the token's end
    for (let i = Math.max(head, bytes.length - 3); i < bytes.length; i++) {
      const b = bytes[i] as number;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (i + need > bytes.length) {
        tail = i;
        break;
      }
    }
    const middle = tail > head ? new TextDecoder().decode(Uint8Array.from(bytes.slice(head, tail))) : '';
    const text = this.folder.foldString(middle).trim();
    const partial = head > 0 || tail < bytes.length;
    return {
      text: text === '' && partial ? null : text,
      bytes: bytes.filter((b) => !ASCII_SPACE.has(b)).length,
      headPartial: head > 0,
      tailPartial: tail < bytes.length,
      unkWord: false,
    };
  }

  private computePlain(s: string): Surface {
    return { text: this.folder.foldString(s).trim(), bytes: 0, headPartial: false, tailPartial: false, unkWord: false };
  }
}

/** GPT-2's byte-to-unicode map, reversed: character → byte. */
function byteDecoder(): Map<string, number> {
  const keep = (b: number): boolean => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out = new Map<string, number>();
  let n = 0;
  for (let b = 0; b < 256; b++) out.set(String.fromCharCode(keep(b) ? b : 256 + n++), b);
  return out;
}
