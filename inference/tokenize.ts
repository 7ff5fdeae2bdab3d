/**
 * The token classifier's tokenizer: word runs (letters, digits, marks) and single punctuation/symbol
 * code points, with UTF-16 offsets — the matches of {@link TOKEN_RE}, shared by training and serving.
 */
import { CLASS } from './hashing.ts';

export interface Token {
  start: number;
  end: number;
  text: string;
}

/** The token pattern the featurizer configs name (`tokenizer`). */
export const TOKEN_RE = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

/**
 * Word tokens (letter/digit runs) and single punctuation/symbol characters, with UTF-16 offsets: the
 * matches of TOKEN_RE, found by a scan over code points with the CLASS table (the regex is ~2× slower;
 * test/unit/models-token-features.test.ts checks the two agree on every code unit).
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const start = i;
    let k = kindAt(text, i);
    i += k >> 2;
    if ((k & 3) === SPACE) continue;
    if ((k & 3) === WORD) {
      while (i < n) {
        k = kindAt(text, i);
        if ((k & 3) !== WORD) break;
        i += k >> 2;
      }
    }
    out.push({ start, end: i, text: text.slice(start, i) });
  }
  return out;
}

/** Kinds of code point for {@link tokenize}: in TOKEN_RE's word class, `\s`, or any other. */
const SPACE = 0;
const WORD = 1;
const OTHER = 2;
const WORD_CP = /^[\p{L}\p{N}\p{M}]$/u;
const astralKinds = new Map<number, number>();

/** The kind of the code point at `i`, plus its length in code units times 4. */
function kindAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) {
    // CLASS 1 is exactly [\p{L}\p{N}\p{M}] off the surrogates; CLASS 0 holds \s and some format characters
    const k = CLASS[c] as number;
    return 4 | (k === 1 ? WORD : k === 2 || !isSpace(c) ? OTHER : SPACE);
  }
  const d = c <= 0xdbff && i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
  if (d < 0xdc00 || d > 0xdfff) return 4 | OTHER; // a lone surrogate: one code point of its own
  const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  let k = astralKinds.get(cp);
  if (k === undefined) {
    k = WORD_CP.test(String.fromCodePoint(cp)) ? WORD : OTHER;
    if (astralKinds.size < 4096) astralKinds.set(cp, k);
  }
  return 8 | k;
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator (ECMA-262), Zs per Unicode. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
