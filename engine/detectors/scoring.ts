/**
 * Shared by the classifier detectors: score every chunk (and decoded view) of the normalised text
 * with one model call, and report the best-scoring window as the finding's span.
 */
import { CHUNK_OVERLAP, chunkOverlap, chunkRanges } from '../chunk.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import type { DetectorInput, FindingItem } from '../detector.ts';
import type { ModelCall, ModelClient } from '../model-client.ts';
import type { TextView } from '../views.ts';

export interface Window {
  text: string;
  /** Range in the normalised text. */
  start: number;
  end: number;
  view?: TextView['encoding'];
}

/**
 * The model windows of a text: overlapping chunks of the normalised text, then chunks of each decoded
 * view. An encoded run that has a decoded view is blanked (same length, so offsets hold) in the main
 * text: the model reads what it says in the view, not the run's letters — a long base64 or hex blob
 * by itself is not evidence of an attack (tool results and logs are full of them).
 */
export function windowsOf(input: DetectorInput, maxChars: number, views: readonly TextView[] = []): Window[] {
  let text = input.text.text;
  for (const v of views) text = text.slice(0, v.start) + ' '.repeat(v.end - v.start) + text.slice(v.end);
  const out: Window[] = chunkRanges(text, maxChars, chunkOverlap(maxChars)).map((c) => ({
    text: text.slice(c.start, c.end),
    start: c.start,
    end: c.end,
  }));
  // A decoded view's windows overlap by the whole CHUNK_OVERLAP, whatever maxChars (as served since views came in).
  for (const v of views) {
    for (const c of chunkRanges(v.text, maxChars, CHUNK_OVERLAP))
      out.push({ text: v.text.slice(c.start, c.end), start: v.start, end: v.end, view: v.encoding });
  }
  return out;
}

/** The best window and its score; score 0 when there is no text. */
export function best(windows: readonly Window[], scores: readonly number[]): { score: number; window: Window | null } {
  let score = 0;
  let window: Window | null = null;
  for (let i = 0; i < windows.length; i++) {
    const s = scores[i] ?? 0;
    if (window === null || s > score) {
      score = s;
      window = windows[i]!;
    }
  }
  return { score, window };
}

/** The model request of a detector's input: its deadline (a minute when it has none), signal and tenant. */
export function modelCall(input: DetectorInput): ModelCall {
  return { deadlineAt: input.deadlineAt ?? Date.now() + 60_000, signal: input.signal, tenant: input.tenant };
}

/**
 * Each pool model's best window over the text and its views (one `classify` per model, all at once), into
 * `tops` by model id. @throws the ModelClient's errors
 */
export async function scorePoolModels(
  models: ModelClient,
  input: DetectorInput,
  entries: readonly ModelEntry[],
  views: readonly TextView[],
  tops: Map<string, { score: number; window: Window | null }>,
): Promise<void> {
  const call = modelCall(input);
  const found = await Promise.all(
    entries.map(async (entry) => {
      const windows = windowsOf(input, entry.max_chars, views);
      const scores = await models.classify(
        entry.id,
        windows.map((w) => w.text),
        call,
      );
      return best(windows, scores);
    }),
  );
  entries.forEach((e, i) => tops.set(e.id, found[i]!));
}

/** A finding item over a window, in original offsets. */
export function itemFor(
  input: DetectorInput,
  window: Window,
  label: string,
  confidence: number,
  source: string,
): FindingItem {
  const span = input.text.toOriginal(window.start, window.end);
  return {
    text: input.text.original.slice(span[0], span[1]),
    label,
    confidence: round(confidence),
    source: window.view ? `${source};view=${window.view}` : source,
    span,
  };
}

/** Scores rounded to 4 decimals: stable JSON, no false precision. */
export function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
