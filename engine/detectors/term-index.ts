/**
 * The intent rules' term matching (intent-rules.ts): every term of every class of a lexicon in two tries,
 * those matched at a word start (spaced scripts) and those matched anywhere (scripts without spaces,
 * Arabic, Hebrew), scanned in one pass over a text lowercased code unit by code unit.
 */

/**
 * Scripts whose terms match anywhere: those written without spaces between words, and Arabic and
 * Hebrew, where articles, prepositions and conjunctions are written onto the word (و، ب، ال، ה، ו).
 */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Arabic}\p{Script=Hebrew}]/u;
/** Scripts whose short terms are whole words (Hangul words take particles: its terms are always stems). */
const WORDS = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u;

/** Terms of a spaced script up to this long match whole words only. */
const SHORT = 4;

/** Whether each BMP code unit is part of a word (a letter, digit or mark); astral units count as not. */
const WORD_UNIT = (() => {
  const table = new Uint8Array(0x10000);
  const re = /[\p{L}\p{N}\p{M}]/u;
  for (let c = 0; c < 0x10000; c++) if (c < 0xd800 || c > 0xdfff) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
})();

interface TrieNode {
  next: Map<number, TrieNode>;
  /** the classes whose terms end here, each with whether the term must end a word */
  ends: { cls: number; whole: boolean }[];
}

const node = (): TrieNode => ({ next: new Map(), ends: [] });

/**
 * The tries of a TermIndex in flat arrays: nodes numbered 0 (word-start root), 1 (anywhere root), …; each
 * edge (parent, code unit) → child in one open-addressed hash table. A scan does one lookup per character
 * it walks, and a Map's lookup was most of the cost (~60 µs of the main thread per 1,000 characters).
 */
interface FlatTrie {
  mask: number;
  edgeParent: Int32Array;
  edgeUnit: Uint16Array;
  edgeChild: Int32Array;
  /** node n's term ends are endCls/endWhole[endStart[n] .. endStart[n + 1]) */
  endStart: Int32Array;
  endCls: Int32Array;
  endWhole: Uint8Array;
}

const slot = (parent: number, unit: number, mask: number): number =>
  (Math.imul(parent, 0x9e3779b1) ^ Math.imul(unit, 0x85ebca6b)) & mask;

function flatten(roots: readonly TrieNode[]): FlatTrie {
  const nodes: TrieNode[] = [...roots];
  let edges = 0;
  for (let i = 0; i < nodes.length; i++)
    for (const child of nodes[i]!.next.values()) {
      nodes.push(child);
      edges++;
    }
  const id = new Map(nodes.map((n, i) => [n, i]));
  let size = 16;
  while (size < 2 * edges) size *= 2;
  const t: FlatTrie = {
    mask: size - 1,
    edgeParent: new Int32Array(size).fill(-1),
    edgeUnit: new Uint16Array(size),
    edgeChild: new Int32Array(size),
    endStart: new Int32Array(nodes.length + 1),
    endCls: new Int32Array(nodes.reduce((k, n) => k + n.ends.length, 0)),
    endWhole: new Uint8Array(nodes.reduce((k, n) => k + n.ends.length, 0)),
  };
  let e = 0;
  nodes.forEach((n, i) => {
    t.endStart[i] = e;
    for (const end of n.ends) {
      t.endCls[e] = end.cls;
      t.endWhole[e++] = end.whole ? 1 : 0;
    }
    for (const [unit, child] of n.next) {
      let at = slot(i, unit, t.mask);
      while (t.edgeParent[at] !== -1) at = (at + 1) & t.mask;
      t.edgeParent[at] = i;
      t.edgeUnit[at] = unit;
      t.edgeChild[at] = id.get(child)!;
    }
  });
  t.endStart[nodes.length] = e;
  return t;
}

/** The child of `parent` by code unit `unit`, or -1. */
function childOf(t: FlatTrie, parent: number, unit: number): number {
  for (let at = slot(parent, unit, t.mask); ; at = (at + 1) & t.mask) {
    const p = t.edgeParent[at]!;
    if (p === -1) return -1;
    if (p === parent && t.edgeUnit[at] === unit) return t.edgeChild[at]!;
  }
}

const AT_WORD_START = 0;
const ANYWHERE = 1;

/**
 * The terms of every class in two tries: those matched at a word start (spaced scripts) and those
 * matched anywhere (scripts without spaces, Arabic, Hebrew). One pass over a text finds every term of
 * every class: the cost is the text's length times the depth the trie walks, not the number of terms.
 */
export class TermIndex {
  private readonly atWordStart = node();
  private readonly anywhere = node();
  /** which code units begin some term: bit 1 at a word start, bit 2 anywhere (skips most positions at once) */
  private readonly first = new Uint8Array(0x10000);
  /** the tries as scanned, built at the first scan after the last add */
  private flat: FlatTrie | null = null;

  add(term: string, cls: number): void {
    const t = lowerUnits(term.normalize('NFKC')).trim();
    if (!t) return;
    this.flat = null;
    // a short term of a spaced script is a whole word ("con" is not "context"); a longer one a stem
    const root = UNSPACED.test(t[0]!) ? this.anywhere : this.atWordStart;
    this.first[t.charCodeAt(0)]! |= root === this.anywhere ? 2 : 1;
    const whole = root === this.atWordStart && t.length <= SHORT && WORDS.test(t);
    let n = root;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      let m = n.next.get(c);
      if (!m) n.next.set(c, (m = node()));
      n = m;
    }
    if (!n.ends.some((e) => e.cls === cls && e.whole === whole)) n.ends.push({ cls, whole });
  }

  /** Every term occurrence in `text` (lowercased), as [start, end) per class, in order of start. */
  scan(text: string, classes: number): [number, number][][] {
    const t = (this.flat ??= flatten([this.atWordStart, this.anywhere]));
    const hits: [number, number][][] = [];
    for (let c = 0; c < classes; c++) hits.push([]);
    const first = this.first;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      const f = first[text.charCodeAt(i)]!;
      if (f === 0) continue;
      if (f & 2) walk(t, ANYWHERE, text, i, hits);
      if (f & 1 && !(i > 0 && WORD_UNIT[text.charCodeAt(i - 1)] === 1)) walk(t, AT_WORD_START, text, i, hits);
    }
    return hits;
  }
}

/** The terms of the trie from `root` that start at `i`, into `hits`. */
function walk(t: FlatTrie, root: number, text: string, i: number, hits: [number, number][][]): void {
  let n = root;
  for (let j = i; j < text.length; j++) {
    n = childOf(t, n, text.charCodeAt(j));
    if (n < 0) return;
    for (let e = t.endStart[n]!; e < t.endStart[n + 1]!; e++)
      if (t.endWhole[e] === 0 || !(j + 1 < text.length && WORD_UNIT[text.charCodeAt(j + 1)] === 1))
        hits[t.endCls[e]!]!.push([i, j + 1]);
  }
}

/** Whether any of `terms` occurs in `text` the way the rules match terms. */
export function termsMatcher(terms: readonly string[]): (text: string) => boolean {
  const index = new TermIndex();
  for (const t of terms) index.add(t, 0);
  return (text) => index.scan(lowerUnits(text), 1)[0]!.length > 0;
}

/** Lowercase code unit by code unit (a unit whose lowercase is longer stays as it is): offsets do not move. */
export function lowerUnits(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const ch of text) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}
