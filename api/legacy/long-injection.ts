/**
 * Long prompt injection (`long_prompt_injection=true`): the text is cut into overlapping chunks
 * (engine/chunk.ts), each scored by the prompt-injection detector at the accurate tier, so the answer
 * says where in a long document an injection sits. Only chunks scoring at or above 0.65 on the
 * spec's scale are reported (docs/legacy.md).
 */
import { CHUNK_OVERLAP, chunkRanges } from '../../engine/chunk.ts';
import type { DetectorResult, Surface } from '../../engine/detector.ts';
import { ModelDeadlineError, ModelOverloadedError } from '../../engine/model-client.ts';
import type { ScanEngine } from '../../engine/pipeline.ts';
import { codePointOffsets } from './characters.ts';
import { LegacyErrors } from './errors.ts';
import { LEGACY_BLOCK_SCORE, legacyScore } from './shapes.ts';

/**
 * Characters of a chunk: the NER and toxicity window, a few of the accurate model's 460-character
 * windows and half a sentence-encoder window — small enough to say where, large enough for context.
 */
export const LONG_CHUNK_CHARS = 2000;

/** A reported chunk: [start, end) in characters (code points) of the body, and its score. */
export interface LongDetection {
  start: number;
  end: number;
  score: number;
}

/** The long-mode element: `result` is the highest reported score (0 when none), as a number like standard mode's. */
export interface LongInjectionElement {
  type: 'score';
  name: 'prompt_injection';
  result: number;
  mode: 'long';
  chunks_analyzed: number;
  detections: LongDetection[];
}

/** The long-mode answer and the prompt-injection result the recorded scan takes (its best chunk's). */
export interface LongInjection {
  element: LongInjectionElement;
  /** The highest-scoring chunk's result, its item spans moved to offsets in the whole text. */
  result: DetectorResult;
}

/**
 * Scores every chunk of `text` (their model requests queue together and are batched by the pool).
 * The best chunk's result stands for the whole text in the recorded scan, so the text is embedded
 * once, not once per chunk and again whole.
 * @throws LegacyError 429 RATE_LIMITED when the pool is saturated, 500 ANALYSIS_TIMEOUT past the deadline.
 */
export async function longInjection(
  engine: ScanEngine,
  text: string,
  surface: Surface,
  deadlineAt: number,
  /** The organization: its chunks share the model pool with other organizations in turn. */
  tenant: string,
): Promise<LongInjection> {
  const chunks = chunkRanges(text, LONG_CHUNK_CHARS, CHUNK_OVERLAP);
  const defaults = engine.registry.get('prompt_injection')!.thresholds;
  let results: DetectorResult[];
  try {
    results = await Promise.all(
      chunks.map(async (c) => {
        const outcome = await engine.scan(
          { surface, text: text.slice(c.start, c.end), tier: 'accurate', detectors: ['prompt_injection'] },
          { deadlineAt, tenant },
        );
        return outcome.runs[0]!.result;
      }),
    );
  } catch (err) {
    if (err instanceof ModelOverloadedError) throw LegacyErrors.rateLimited(err.retryAfterSeconds);
    if (err instanceof ModelDeadlineError) throw LegacyErrors.analysisTimeout();
    throw err;
  }
  const scores = results.map((r) => legacyScore(r.score, (r.thresholds ?? defaults).block_above));
  const best = scores.indexOf(Math.max(...scores));
  const shift = chunks[best]!.start;
  const bestResult = results[best]!;
  const toChars = codePointOffsets(text);
  const detections = chunks
    .map((c, i) => ({ start: toChars(c.start), end: toChars(c.end), score: scores[i]! }))
    .filter((d) => d.score >= LEGACY_BLOCK_SCORE);
  return {
    element: {
      type: 'score',
      name: 'prompt_injection',
      result: Math.max(0, ...detections.map((d) => d.score)),
      mode: 'long',
      chunks_analyzed: chunks.length,
      detections,
    },
    result: {
      ...bestResult,
      items: bestResult.items.map((item) => ({ ...item, span: [item.span[0] + shift, item.span[1] + shift] })),
    },
  };
}
