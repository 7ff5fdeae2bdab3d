/**
 * Long content is split into overlapping windows for the models (no silent truncation): every
 * character is inside at least one window, and a phrase up to `overlap` long that straddles a
 * boundary is wholly inside one of them. The one chunker of the repository: the detectors serve with
 * it and the trainers train and evaluate with it, so a model sees at training the windows it is served.
 */
export interface Chunk {
  start: number;
  end: number;
}

/** Overlap between model windows: long enough to hold a whole injected instruction. */
export const CHUNK_OVERLAP = 200;

/** The overlap of a model's windows over the content: CHUNK_OVERLAP, at most a quarter of `maxChars`. */
export function chunkOverlap(maxChars: number): number {
  return Math.min(CHUNK_OVERLAP, Math.floor(maxChars / 4));
}

/** The texts of a model's windows over `text` (at most `maxChars` each, overlapping by {@link chunkOverlap}). */
export function chunkTexts(text: string, maxChars: number): string[] {
  return chunkRanges(text, maxChars, chunkOverlap(maxChars)).map((c) => text.slice(c.start, c.end));
}

/** Windows of at most `max` UTF-16 units over `length`, overlapping by `overlap`, cut at whitespace when one is near. */
export function chunkRanges(text: string, max: number, overlap: number): Chunk[] {
  const length = text.length;
  if (length <= max) return [{ start: 0, end: length }];
  const out: Chunk[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(length, start + max);
    if (end < length) {
      // Prefer to end at whitespace in the last tenth of the window.
      const floor = end - Math.floor(max / 10);
      for (let i = end; i > floor; i--) {
        if (isSpace(text.charCodeAt(i - 1))) {
          end = i;
          break;
        }
      }
    }
    out.push({ start, end });
    if (end >= length) return out;
    let next = Math.max(start + 1, end - overlap);
    // Start the next window at a word start when one is near.
    const ceil = Math.min(end, next + Math.floor(overlap / 4));
    for (let i = next; i < ceil; i++) {
      if (isSpace(text.charCodeAt(i))) {
        next = i + 1;
        break;
      }
    }
    start = next;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}
