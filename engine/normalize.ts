/**
 * Text normalisation, done once per scan: NFKC, zero-width and bidi controls removed, common
 * homoglyphs (Cyrillic, Greek, fullwidth after NFKC) folded to Latin. Every UTF-16 unit of the
 * normalised text remembers the original range it came from, so detectors work on the normalised
 * text and report spans in the original's offsets.
 */

export interface NormalizedText {
  readonly original: string;
  readonly text: string;
  /** Maps a [start, end) range of `text` to the smallest range of `original` that produced it. */
  toOriginal(start: number, end: number): [number, number];
  /** True when normalisation changed nothing (spans are identical). */
  readonly identity: boolean;
}

// Zero-width, joiners, soft hyphen, word joiner/invisible operators, bidi embeddings/isolates, BOM,
// Mongolian vowel separator, and tag characters (U+E0000 block, used to smuggle invisible text).
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]|\uDB40[\uDC00-\uDC7F]/;

// Confusables that NFKC leaves alone, folded to the Latin letter they imitate.
const HOMOGLYPHS: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  І: 'I',
  Ј: 'J',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Һ: 'H',
  Ӏ: 'I',
  // Greek
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  υ: 'u',
  ι: 'i',
  κ: 'k',
  τ: 't',
  χ: 'x',
  ε: 'e',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Latin look-alikes
  ı: 'i',
  ȷ: 'j',
  ʀ: 'r',
  ʏ: 'y',
  ᴀ: 'a',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ᴋ: 'k',
  ᴍ: 'm',
  ᴏ: 'o',
  ᴘ: 'p',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ᴢ: 'z',
};

// Anything outside printable ASCII may need work; pure ASCII (the common case) is returned as is.
// eslint-disable-next-line no-control-regex -- tab, LF and CR are the control characters plain text may hold
const NEEDS_WORK = /[^\x09\x0A\x0D\x20-\x7E]/;
const COMBINING = /\p{M}/u;

const identity = (original: string): NormalizedText => ({
  original,
  text: original,
  identity: true,
  toOriginal: (start, end) => [start, end],
});

/** Normalises `original` once; cheap (no allocation beyond the string) for printable ASCII. */
export function normalize(original: string): NormalizedText {
  if (!NEEDS_WORK.test(original)) return identity(original);

  let out = '';
  // starts[i] / ends[i]: the original range that produced output unit i.
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  const n = original.length;
  while (i < n) {
    // A cluster: one code point plus any combining marks that follow, so NFKC can compose them.
    const first = original.codePointAt(i)!;
    let j = i + (first > 0xffff ? 2 : 1);
    while (j < n) {
      const cp = original.codePointAt(j)!;
      const ch = String.fromCodePoint(cp);
      if (!COMBINING.test(ch) || INVISIBLE.test(ch)) break;
      j += cp > 0xffff ? 2 : 1;
    }
    const cluster = original.slice(i, j);
    let piece: string;
    if (INVISIBLE.test(cluster.slice(0, first > 0xffff ? 2 : 1))) {
      piece = '';
      j = i + (first > 0xffff ? 2 : 1);
    } else {
      piece = cluster.normalize('NFKC');
      if (piece.length > 0) {
        let folded = '';
        for (const ch of piece) folded += HOMOGLYPHS[ch] ?? ch;
        piece = folded;
      }
    }
    for (let k = 0; k < piece.length; k++) {
      starts.push(i);
      ends.push(j);
    }
    out += piece;
    i = j;
  }
  if (out === original) return identity(original);
  return {
    original,
    text: out,
    identity: false,
    toOriginal(start, end) {
      if (end <= start) {
        const at = start < starts.length ? starts[start]! : original.length;
        return [at, at];
      }
      return [starts[start]!, ends[Math.min(end, ends.length) - 1]!];
    },
  };
}
