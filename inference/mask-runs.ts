/**
 * pi-suffix's masked runs (char-lm.ts): the benign high-entropy formats that read as non-ASCII, defined by
 * {@link MASKED} and found by a linear scan. The regex tries each of its five alternatives at every
 * position and runs a word's length forward for each (a base64 run of 24, a hex run of 16): ~80 µs of the
 * main thread per 1,000 characters of prose, the largest piece of pi-suffix. The scan reads each
 * character a bounded number of times; test/unit/mask-runs.test.ts checks it marks exactly what the regex
 * matches, on random and dataset texts.
 */
import { STEP_CHARS, type Steps } from '../lib/steps.ts';
import { isSpace } from './tokenize.ts';

/**
 * The definition: URLs, e-mail addresses, hex (hashes, ids, UUIDs, addresses: 8+ hex characters with a
 * digit and a letter, or 16+) and base64-alphabet runs without spaces.
 */
export const MASKED =
  /https?:\/\/\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F][0-9a-fA-F-]{7,}\b|\b[0-9a-fA-F-]{16,}\b|[A-Za-z0-9+/=_-]{24,}/g;

// Character classes of MASKED's alternatives, by ASCII code unit (no `u` flag: \w and \b are ASCII).
const W = 1; // \w
const E = 2; // [\w.+-]: an e-mail's local part
const D = 4; // [\w-]: a domain label
const H = 8; // [0-9a-fA-F-]
const X = 16; // [0-9a-fA-F]
const B = 32; // [A-Za-z0-9+/=_-]: base64 and base64url
const DIGIT = 64;
const HEX_LETTER = 128;

const CLASS = (() => {
  const t = new Uint8Array(128);
  const add = (chars: string, bits: number) => {
    for (const ch of chars) t[ch.charCodeAt(0)]! |= bits;
  };
  const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const letters = upper + upper.toLowerCase();
  const digits = '0123456789';
  add(letters + digits + '_', W | E | D | B);
  add('.+-', E);
  add('-', D | H | B);
  add('+/=', B);
  add(digits + 'abcdefABCDEF', H | X);
  add(digits, DIGIT);
  add('abcdefABCDEF', HEX_LETTER);
  return t;
})();

const classOf = (c: number): number => (c < 128 ? CLASS[c]! : 0);

/** The end of the run of `bits` characters from `i`. */
function runEnd(text: string, i: number, bits: number): number {
  while (i < text.length && classOf(text.charCodeAt(i)) & bits) i++;
  return i;
}

const isWordAt = (text: string, i: number): boolean =>
  i >= 0 && i < text.length && (classOf(text.charCodeAt(i)) & W) !== 0;
/** \b at position i. */
const boundaryAt = (text: string, i: number): boolean => isWordAt(text, i - 1) !== isWordAt(text, i);

/**
 * Marks in `masked` (1 per code unit) what MASKED's global matches cover, yielding about every
 * STEP_CHARS characters. Runs shared by many start positions (the run of a class from a position, the
 * last \b of a hex run, the domain after an '@') are computed once each, so the scan is linear.
 */
export function* maskRunsSteps(text: string, masked: Uint8Array): Steps<void> {
  const n = text.length;
  // each: the end of the run of that class through the positions reached so far (valid while s < it)
  let eEnd = 0;
  let hEnd = 0;
  let bEnd = 0;
  // the hex run ending at hEnd: its last \b at or before hEnd (-1: none found from the run's start)
  let hBoundary = -1;
  // the next digit / hex letter at or after s (n: none)
  let nextDigit = -1;
  let nextHexLetter = -1;
  // the '@' whose domain was last read, and where that e-mail match ends (-1: no match)
  let at = -1;
  let atEnd = -1;
  let pausedAt = 0;
  let s = 0;
  while (s < n) {
    if (s - pausedAt >= STEP_CHARS) {
      pausedAt = s;
      yield;
    }
    const c = text.charCodeAt(s);
    const k = classOf(c);
    let end = -1;
    // https?:\/\/\S+
    if (c === 104 /* h */ && text.startsWith('http', s)) {
      const after = text.startsWith('https://', s) ? s + 8 : text.startsWith('http://', s) ? s + 7 : -1;
      if (after >= 0) {
        let e = after;
        while (e < n && !isSpace(text.charCodeAt(e))) e++;
        if (e > after) end = e;
      }
    }
    // [\w.+-]+@[\w-]+(?:\.[\w-]+)+
    if (end < 0 && k & E) {
      if (s >= eEnd) eEnd = runEnd(text, s, E);
      if (eEnd < n && text.charCodeAt(eEnd) === 64 /* @ */) {
        if (at !== eEnd) {
          at = eEnd;
          atEnd = emailEnd(text, at);
        }
        end = atEnd;
      }
    }
    if (end < 0 && k & H) {
      if (s >= hEnd) {
        hEnd = runEnd(text, s, H);
        hBoundary = hEnd;
        while (hBoundary > s && !boundaryAt(text, hBoundary)) hBoundary--;
        if (!boundaryAt(text, hBoundary)) hBoundary = -1;
      }
      if (boundaryAt(text, s)) {
        // \b(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F][0-9a-fA-F-]{7,}\b
        if (k & X) {
          if (nextDigit < s) nextDigit = nextOf(text, s, DIGIT);
          if (nextHexLetter < s) nextHexLetter = nextOf(text, s, HEX_LETTER);
          if (nextDigit < hEnd && nextHexLetter < hEnd && hBoundary >= s + 8) end = hBoundary;
        }
        // \b[0-9a-fA-F-]{16,}\b
        if (end < 0 && hBoundary >= s + 16) end = hBoundary;
      }
    }
    // [A-Za-z0-9+/=_-]{24,}
    if (end < 0 && k & B) {
      if (s >= bEnd) bEnd = runEnd(text, s, B);
      if (bEnd - s >= 24) end = bEnd;
    }
    if (end < 0) {
      // Where an alternative could next succeed: the e-mail and base64 alternatives fail alike at every
      // later start in the same run (same run end, less room), the hex ones need a \b, the URL an 'h'.
      const limit = Math.min(k & E ? eEnd : s + 1, k & B ? bEnd : s + 1);
      s++;
      while (s < limit && text.charCodeAt(s) !== 104 && !boundaryAt(text, s)) s++;
      continue;
    }
    masked.fill(1, s, end);
    s = end;
  }
}

/** The first position at or after `i` of a character with `bits`, or the text's length. */
function nextOf(text: string, i: number, bits: number): number {
  while (i < text.length && !(classOf(text.charCodeAt(i)) & bits)) i++;
  return i;
}

/** Where `@[\w-]+(?:\.[\w-]+)+` from the '@' at `at` ends, or -1 when it does not match. */
function emailEnd(text: string, at: number): number {
  let e = runEnd(text, at + 1, D);
  if (e === at + 1) return -1;
  let labels = 0;
  while (e + 1 < text.length && text.charCodeAt(e) === 46 /* . */ && classOf(text.charCodeAt(e + 1)) & D) {
    e = runEnd(text, e + 1, D);
    labels++;
  }
  return labels > 0 ? e : -1;
}
