/**
 * The folded copy of a text that hf-align.ts searches token surfaces in: per code point NFKD,
 * nonspacing marks removed, lower case, whitespace and control characters as a space — what the
 * usual normalizers (BertNormalizer, NFKC, Lowercase, StripAccents) do to text, or less — with, per
 * folded unit, the original UTF-16 [start, end) it came from. ASCII runs take a fast path; other
 * characters are folded once and cached.
 */

const PUNCT = /[\p{P}\u0021-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007E]/u;
const SPACE_OR_CONTROL = /^[\s\p{Cc}\p{Cf}]$/u;
const MARKS = /\p{Mn}/gu; // nonspacing marks: what StripAccents and BertNormalizer remove
const isCjk = (cp: number): boolean =>
  (cp >= 0x4e00 && cp <= 0x9fff) ||
  (cp >= 0x3400 && cp <= 0x4dbf) ||
  (cp >= 0x20000 && cp <= 0x2ebef) ||
  (cp >= 0xf900 && cp <= 0xfaff) ||
  (cp >= 0x2f800 && cp <= 0x2fa1f);

/** One code point folded: NFKD, marks removed, lower case; whitespace and control characters → ' '. */
function foldChar(ch: string): string {
  if (SPACE_OR_CONTROL.test(ch)) return ' ';
  let d = ch.normalize('NFKD').replace(MARKS, '');
  // compatibility forms that decompose to a space and a mark (‾ ¨ ´) stay what they are: normalizers
  // that do not decompose them keep a character there, and one that does leaves a mark token
  if (/[\s\p{Cc}\p{Cf}]/u.test(d)) d = ch.normalize('NFD').replace(MARKS, '') || ch;
  return d.toLowerCase().replace(/ς/g, 'σ');
}

/** A folded copy of a text and, per folded unit, the original [start, end) it came from. */
export interface Folded {
  s: string;
  start: Int32Array;
  end: Int32Array;
}

const CONTROL_ASCII = /[\x00-\x1f\x7f]/g; // eslint-disable-line no-control-regex

/** Folds texts and token surfaces alike (a cache of the non-ASCII characters seen). */
export class Folder {
  private readonly chars = new Map<string, string>();

  private foldCp(ch: string): string {
    let f = this.chars.get(ch);
    if (f === undefined) {
      f = foldChar(ch);
      if (this.chars.size > 20_000) this.chars.clear();
      this.chars.set(ch, f);
    }
    return f;
  }

  /** A token surface folded as the text is. */
  foldString(s: string): string {
    // eslint-disable-next-line no-control-regex
    if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase().replace(CONTROL_ASCII, ' ');
    let out = '';
    for (const ch of s) out += this.foldCp(ch);
    return out;
  }

  /** The folded copy of `text`, with the map back to its offsets. */
  fold(text: string): Folded {
    const n = text.length;
    let start = new Int32Array(n + 16);
    let end = new Int32Array(n + 16);
    const parts: string[] = [];
    let k = 0;
    const room = (m: number): void => {
      if (k + m <= start.length) return;
      const cap = Math.max(k + m, start.length * 2);
      const s2 = new Int32Array(cap);
      const e2 = new Int32Array(cap);
      s2.set(start);
      e2.set(end);
      start = s2;
      end = e2;
    };
    for (let i = 0; i < n;) {
      if (text.charCodeAt(i) < 128) {
        let j = i + 1;
        while (j < n && text.charCodeAt(j) < 128) j++;
        const run = text.slice(i, j).toLowerCase().replace(CONTROL_ASCII, ' ');
        room(run.length);
        for (let p = 0; p < run.length; p++) {
          start[k + p] = i + p;
          end[k + p] = i + p + 1;
        }
        parts.push(run);
        k += run.length;
        i = j;
        continue;
      }
      const len = (text.codePointAt(i) as number) > 0xffff ? 2 : 1;
      const f = this.foldCp(text.slice(i, i + len));
      if (f.length === 0) {
        // a combining mark: it belongs to the character before it
        if (k > 0) end[k - 1] = i + len;
      } else {
        room(f.length);
        for (let p = 0; p < f.length; p++) {
          start[k + p] = i;
          end[k + p] = i + len;
        }
        parts.push(f);
        k += f.length;
      }
      i += len;
    }
    return { s: parts.join(''), start, end };
  }
}

/** A code point of a text: its UTF-16 [start, end) and its UTF-8 length. */
export interface Cp {
  start: number;
  end: number;
  bytes: number;
}

/** The code points of text[a, b). */
export function codePoints(text: string, a: number, b: number): Cp[] {
  const out: Cp[] = [];
  for (let i = a; i < b;) {
    const cp = text.codePointAt(i) as number;
    const len = cp > 0xffff ? 2 : 1;
    out.push({ start: i, end: i + len, bytes: cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4 });
    i += len;
  }
  return out;
}

/** Bytes of ASCII whitespace (what byte-level tokens of a space hold). */
export const ASCII_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]);
/** Whether text[i] is whitespace or a control or format character (never part of a token's span). */
export const isSpace = (text: string, i: number): boolean => SPACE_OR_CONTROL.test(text[i] as string);
/** Whether text[i] is the second half of a surrogate pair. */
export const isLowSurrogate = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
};

/** End of the pre-tokenizer word at `i` of a folded text: one punctuation or CJK character, or a run of neither. */
export function wordEnd(s: string, i: number): number {
  if (i >= s.length) return i;
  const cp = s.codePointAt(i) as number;
  const len = (c: number): number => (c > 0xffff ? 2 : 1);
  if (isCjk(cp) || PUNCT.test(String.fromCodePoint(cp))) return i + len(cp);
  let j = i;
  while (j < s.length) {
    const c = s.codePointAt(j) as number;
    if (c === 32 || isCjk(c) || PUNCT.test(String.fromCodePoint(c))) break;
    j += len(c);
  }
  return j;
}
