/** The path around a match: growing a match over path characters, and the OS the path names. */
import type { PathOs } from './types.ts';

// Characters a path token is made of; the match grows over them (bounded) to show the whole path.
// A lookup table, not a regex: growing runs once per character of every matched path.
const PATH_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.~%$:\\/+{}@-')
  PATH_CHAR[c.charCodeAt(0)] = 1;
const isPathChar = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c < 128 && PATH_CHAR[c] === 1;
};
const MAX_GROW = 256;
export const WEB_URL = /^(?:https?|ftp|wss?):\/\/[^/\\]+/i;

/** Grows [start, end) over path characters, never left of `floor` (the previous match's end). */
export function grow(text: string, start: number, end: number, right: boolean, floor: number): [number, number] {
  let s = start;
  const stop = Math.max(floor, start - MAX_GROW);
  while (s > stop && isPathChar(text, s - 1)) s--;
  let e = end;
  if (right) {
    while (e < text.length && e - end < MAX_GROW && isPathChar(text, e) && text[e] !== ':') e++;
    // A sentence's punctuation is not part of the path.
    while (e > end && /[.,;:!?]/.test(text[e - 1]!)) e--;
  }
  return [s, e];
}

/** The OS a path names: macOS for its own roots, else the rule's OS, else a guess from its root or separators. */
export function inferOs(token: string, os: PathOs): PathOs {
  // macOS shares the Unix layout, so its own roots override a Unix rule's guess.
  if (/^(?:~|\/Users\/[^/]+)?\/(?:private|Library)\//.test(token)) return 'macos';
  if (os !== 'any') return os;
  if (/^[a-z]:[\\/]|%\w+%|\\/i.test(token)) return 'windows';
  if (/^\/Users\//.test(token)) return 'macos';
  if (/^\/(?:home|root|etc)\//.test(token)) return 'linux';
  return 'any';
}
