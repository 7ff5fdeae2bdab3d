/**
 * The legacy API counts characters as the spec's limits do: Unicode code points, where JavaScript
 * strings count UTF-16 units (a character past U+FFFF is two). A lone surrogate counts as one.
 */

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** The number of characters (Unicode code points) in `s`, stopping early past `max`. */
export function countChars(s: string, max = Infinity): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= max; i++, n++) {
    if (isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
  }
  return n;
}

/** UTF-16 offset → code point offset in `text` (a table built once: every chunk's start and end are looked up). */
export function codePointOffsets(text: string): (utf16: number) => number {
  const table = new Uint32Array(text.length + 1);
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    // The low half of a surrogate pair is inside the character its high half started (offset: that start).
    const lowHalf = isLow(text.charCodeAt(i)) && i > 0 && isHigh(text.charCodeAt(i - 1));
    table[i] = lowHalf ? points - 1 : points++;
  }
  table[text.length] = points;
  return (utf16) => table[utf16]!;
}
