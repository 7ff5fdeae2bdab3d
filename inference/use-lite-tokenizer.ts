/**
 * The SentencePiece (unigram) tokenizer of Universal Sentence Encoder-lite, as the TF.js package
 * `@tensorflow-models/universal-sentence-encoder@1.3.3` (Apache-2.0) runs it — reimplemented here so
 * serving does not pull TF.js in. Its behaviour, quirks included, is what the encoder was fed:
 * - input is NFKC-normalised; only U+0020 spaces become `▁` (U+2581), and a `▁` is prepended to a
 *   non-empty input (tabs and newlines stay as they are and usually end up unknown);
 * - the lattice is over code points; pieces 0–5 (unk, control, reserved) never match; a code point
 *   where no piece starts (the prefix walk finds none ending) is the unknown piece (id 0) with score 0,
 *   which beats every real piece (all scores are negative) wherever it can compete;
 * - Viterbi keeps the first path score unless a later one is ≥ it, and treats a best score of exactly
 *   0 as "unset" (the package's rule);
 * - the backward pass steps back by the piece's UTF-16 length, not its code-point count (the package's
 *   rule: it only differs for pieces holding astral characters);
 * - consecutive unknown ids are merged into one.
 * Ids index the encoder's embedding table directly.
 */

/** Pieces with their log-probability scores, in id order (`vocab.json` of the model package). */
export type UseVocabulary = ReadonlyArray<readonly [string, number]>;

const SEPARATOR = '\u2581';
const RESERVED_SYMBOLS = 6;
export const UNKNOWN_ID = 0;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** id of the piece ending here, -1 when none */
  id: number;
  length: number;
  score: number;
}

function newNode(length: number): TrieNode {
  return { children: new Map(), id: -1, length, score: 0 };
}

/** What the encoder sees of a text before segmentation. */
export function normalizeForUse(text: string): string {
  const normalized = text.normalize('NFKC');
  return normalized.length > 0 ? SEPARATOR + normalized.replaceAll(' ', SEPARATOR) : normalized;
}

export class UseTokenizer {
  private readonly root = newNode(0);

  constructor(private readonly vocabulary: UseVocabulary) {
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id] as readonly [string, number];
      let node = this.root;
      for (const ch of piece) {
        let next = node.children.get(ch);
        if (!next) {
          next = newNode(node.length + 1);
          node.children.set(ch, next);
        }
        node = next;
      }
      node.id = id;
      node.score = score;
    }
  }

  /** Vocabulary size (the pieces; the embedding table may have a few more rows). */
  get size(): number {
    return this.vocabulary.length;
  }

  /** Piece ids of `text`, in order. */
  encode(text: string): number[] {
    const symbols = Array.from(normalizeForUse(text));
    const n = symbols.length;
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    // arcs[end] lists the pieces that end at `end`, by ascending start: [start, id, score] triples.
    const arcs: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let i = 0; i < n; i++) {
      let node = this.root.children.get(symbols[i] as string);
      let matched = false;
      for (let j = i; node; j++) {
        if (node.id >= 0) {
          arcs[i + node.length]?.push(i, node.id, node.score);
          matched = true;
        }
        node = j + 1 < n ? node.children.get(symbols[j + 1] as string) : undefined;
      }
      if (!matched) arcs[i + 1]?.push(i, UNKNOWN_ID, 0);
    }
    for (let end = 0; end <= n; end++) {
      const list = arcs[end] as number[];
      for (let k = 0; k < list.length; k += 3) {
        const start = list[k] as number;
        const score = (list[k + 2] as number) + (best[start] as number);
        if (best[end] === 0 || score >= (best[end] as number)) {
          best[end] = score;
          words[end] = list[k + 1] as number;
        }
      }
    }
    const reversed: number[] = [];
    for (let iter = n; iter > 0;) {
      const id = words[iter] as number;
      reversed.push(id);
      iter -= (this.vocabulary[id] as readonly [string, number])[0].length;
    }
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === UNKNOWN_ID)) merged.push(id);
      previousUnknown = id === UNKNOWN_ID;
    }
    return merged.reverse();
  }
}

/** Splits ids into windows of at most `size` tokens, starting every `stride` tokens (≥ 1 window). */
export function tokenWindows(ids: readonly number[], size: number, stride: number = size): number[][] {
  if (ids.length <= size) return [ids.slice()];
  const out: number[][] = [];
  for (let start = 0; ; start += stride) {
    out.push(ids.slice(start, start + size));
    if (start + size >= ids.length) break;
  }
  return out;
}
