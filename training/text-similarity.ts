/**
 * How varied a set of texts is and how close it comes to another: distinct word n-gram ratios, and
 * cosine similarity of hashed character-trigram term-frequency vectors with nearest-neighbour search
 * (`npm run data:diversity`).
 */

/** Characters of scripts written without spaces: each one counts as a word. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Lower-cased words (letter / digit runs); Han, kana and Thai characters one word each. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const run of text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []) {
    if (!UNSPACED.test(run)) {
      out.push(run);
      continue;
    }
    let word = '';
    for (const ch of run) {
      if (UNSPACED.test(ch)) {
        if (word) out.push(word);
        out.push(ch);
        word = '';
      } else word += ch;
    }
    if (word) out.push(word);
  }
  return out;
}

/** Distinct / total word n-grams over all texts (n-grams do not cross texts), per n; null when there are none. */
export function distinctNgramRatios(texts: readonly string[], ns: readonly number[] = [1, 2, 3]): (number | null)[] {
  return ns.map((n) => {
    const seen = new Set<string>();
    let total = 0;
    for (const t of texts) {
      const w = words(t);
      for (let i = 0; i + n <= w.length; i++) {
        seen.add(w.slice(i, i + n).join(' '));
        total++;
      }
    }
    return total ? seen.size / total : null;
  });
}

/** A sparse vector: ascending distinct indices and their values. */
export interface SparseVector {
  idx: Int32Array;
  val: Float32Array;
}

export const HASH_DIMS = 1 << 18;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Term frequencies of the text's character trigrams (lower-cased, whitespace collapsed, a space at each
 * end), hashed into `dims` buckets, sublinear (1 + ln tf: a rule of 80 dashes must not make two
 * unrelated documents alike) and L2-normalised; the empty vector for an empty text.
 */
export function charTrigramVector(text: string, dims = HASH_DIMS): SparseVector {
  const chars = Array.from(` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `);
  const counts = new Map<number, number>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const b = fnv1a(chars[i]! + chars[i + 1]! + chars[i + 2]!) % dims;
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  if (chars.length <= 2) counts.clear(); // blank text: only the padding
  const idx = Int32Array.from([...counts.keys()].sort((a, b) => a - b));
  const tf = Float32Array.from(idx, (i) => 1 + Math.log(counts.get(i)!));
  const norm = Math.sqrt(tf.reduce((s, w) => s + w * w, 0));
  const val = tf.map((w) => w / norm);
  return { idx, val };
}

/** Cosine similarity of two L2-normalised sparse vectors (0 when either is empty). */
export function cosine(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let dot = 0;
  while (i < a.idx.length && j < b.idx.length) {
    const x = a.idx[i]!;
    const y = b.idx[j]!;
    if (x === y) dot += a.val[i++]! * b.val[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return dot;
}

export interface Neighbours {
  /** Per query, the highest cosine similarity to a corpus row (0 for an empty corpus). */
  sim: Float64Array;
  /** Per query, that row's index (-1 when none). */
  index: Int32Array;
}

/**
 * Each query's nearest corpus row by cosine similarity. Without `corpus` the queries are searched among
 * themselves, a row never its own neighbour. A query is scattered into a dense array once and every
 * corpus row is dotted against it, so the cost is (queries × corpus non-zeros).
 */
export function nearestNeighbours(
  queries: readonly SparseVector[],
  corpus?: readonly SparseVector[],
  dims = HASH_DIMS,
): Neighbours {
  const self = corpus === undefined;
  const rows = corpus ?? queries;
  const sim = new Float64Array(queries.length);
  const index = new Int32Array(queries.length).fill(-1);
  const dense = new Float32Array(dims);
  for (let q = 0; q < queries.length; q++) {
    const v = queries[q]!;
    for (let k = 0; k < v.idx.length; k++) dense[v.idx[k]!] = v.val[k]!;
    // among themselves the relation is symmetric: each pair once, both ends updated
    for (let r = self ? q + 1 : 0; r < rows.length; r++) {
      const u = rows[r]!;
      let dot = 0;
      for (let k = 0; k < u.idx.length; k++) dot += u.val[k]! * dense[u.idx[k]!]!;
      if (index[q] === -1 || dot > sim[q]!) {
        sim[q] = dot;
        index[q] = r;
      }
      if (self && (index[r] === -1 || dot > sim[r]!)) {
        sim[r] = dot;
        index[r] = q;
      }
    }
    for (let k = 0; k < v.idx.length; k++) dense[v.idx[k]!] = 0;
  }
  return { sim, index };
}

/** Mean and the 95th percentile (nearest rank) of the values; null for none. */
export function meanAndP95(values: ArrayLike<number>): { mean: number; p95: number } | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return { mean: sum / sorted.length, p95: sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]! };
}
