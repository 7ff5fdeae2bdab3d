/**
 * Token labels of an operator-supplied token classifier → entities, as Hugging Face's
 * token-classification pipeline does with `aggregation_strategy="simple"`: argmax label per token;
 * a `B-` tag or a change of type starts a new entity, an `I-` tag of the same type continues it
 * (`E-`/`L-` continue and close it, `S-`/`U-` stand alone; a label without a prefix counts as `I-`);
 * `O` entities are dropped. One difference: the tokens of one word stay together — a token glued to
 * the one before it inside a word (no space, letters or digits on both sides, or the same character)
 * takes that token's entity whatever its own label — so an entity never ends or starts mid-word.
 * Confidence is the mean of the tokens' top probabilities; the span runs from the first token's start
 * to the last token's end.
 */
import { entityType } from './extra-models.ts';

/** An entity before the model's type → label mapping. */
export interface RawEntity {
  type: string;
  start: number;
  end: number;
  confidence: number;
}

type Tag = { bi: 'B' | 'I' | 'E' | 'S'; type: string | null };

function parseTag(label: string): Tag {
  const type = entityType(label);
  const m = /^([BIESLU])-/.exec(label);
  const p = m ? m[1] : 'I';
  const bi = p === 'L' ? 'E' : p === 'U' ? 'S' : (p as Tag['bi']);
  return { bi, type };
}

const WORD = /[\p{L}\p{N}\p{M}]/u;

/** Whether token t sits inside the same word as token t-1 (their spans touch or overlap, word characters either side). */
function continuesWord(text: string, starts: Int32Array, ends: Int32Array, t: number, prev: number): boolean {
  const s = starts[t] as number;
  const pe = ends[prev] as number;
  if (s < pe) return true;
  if (s !== pe || s === 0 || s >= text.length) return false;
  return WORD.test(text[s - 1] as string) && WORD.test(text[s] as string);
}

/**
 * Entities of one text from per-token probabilities (`probs`: n × labels.length, rows of tokens in
 * order); tokens with empty spans (whitespace tokens) are passed over.
 */
export function aggregateEntities(
  text: string,
  starts: Int32Array,
  ends: Int32Array,
  probs: Float32Array,
  labels: readonly string[],
): RawEntity[] {
  const C = labels.length;
  const tags = labels.map(parseTag);
  const out: RawEntity[] = [];
  let cur: { type: string | null; start: number; end: number; sum: number; count: number; closed: boolean } | null =
    null;
  const flush = (): void => {
    if (cur && cur.type !== null) out.push({ type: cur.type, start: cur.start, end: cur.end, confidence: cur.sum / cur.count }); // prettier-ignore
    cur = null;
  };
  let prev = -1;
  for (let t = 0; t < starts.length; t++) {
    if ((ends[t] as number) <= (starts[t] as number)) continue;
    let best = 0;
    let p = probs[t * C] as number;
    for (let c = 1; c < C; c++) {
      const q = probs[t * C + c] as number;
      if (q > p) {
        p = q;
        best = c;
      }
    }
    const c = cur as typeof cur;
    if (c && prev >= 0 && continuesWord(text, starts, ends, t, prev)) {
      c.end = Math.max(c.end, ends[t] as number);
      c.sum += p;
      c.count++;
    } else {
      const tag = tags[best] as Tag;
      const continues = c && !c.closed && tag.type === c.type && (tag.bi === 'I' || tag.bi === 'E');
      if (continues) {
        c.end = ends[t] as number;
        c.sum += p;
        c.count++;
        c.closed = tag.bi === 'E';
      } else {
        flush();
        cur = { type: tag.type, start: starts[t] as number, end: ends[t] as number, sum: p, count: 1, closed: tag.bi === 'E' || tag.bi === 'S' }; // prettier-ignore
      }
    }
    prev = t;
  }
  flush();
  return out;
}
