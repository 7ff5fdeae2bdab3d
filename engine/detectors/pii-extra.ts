/**
 * Operators' token classifiers (`inference/extra-models.ts`, detector `pii`) in the pii detector: on the
 * `accurate` and `auto` tiers (not `fast`), each model's entities over pieces of its `maxChars` characters
 * join the detector's items with source `model:NAME@VERSION` and the label the declaration maps its entity
 * type to. Regex items win where they overlap (as over our NER); an entity our NER (or another model)
 * also found with the same span and label is reported once, at the higher confidence. When a model cannot
 * answer, or within its own `timeoutMs`, the detector's own items stand, with a note `extra_model=NAME;reason=…`.
 */
import type { ExtraModel } from '../../inference/extra-models.ts';
import type { Entity } from '../../inference/token-classifier.ts';
import type { Detector, DetectorInput, DetectorResult, FindingItem } from '../detector.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { ExtraModelTimeoutError, extraSource, type ExtraObserver } from './extra-stage.ts';
import { CONTEXT_ONLY_LABELS, withoutOverlaps } from './pii.ts';
import { modelCall, round, windowsOf } from './scoring.ts';

export interface PiiExtraDeps {
  /** The token classifiers declared for `pii`. */
  models: readonly ExtraModel[];
  /** Names of those the pool loaded; the others fall back, with a note, on every scan they are due on. */
  loaded: ReadonlySet<string>;
  client: ModelClient | null;
  observe?: ExtraObserver;
}

/** `base` (the pii detector) with the operators' token classifiers' entities merged in. */
export function withExtraEntities(base: Detector, deps: PiiExtraDeps): Detector {
  if (deps.models.length === 0) return base;
  const served = (m: ExtraModel) => (deps.loaded.has(m.name) ? '' : '; not loaded: scans fall back');
  const on = (m: ExtraModel) => (m.surfaces ? `; on ${m.surfaces.join(', ')}` : '');
  return {
    ...base,
    model: [
      base.model,
      ...deps.models.map((m) => `${m.name}@${m.version} (entities: accurate, auto${on(m)}${served(m)})`),
    ].join('; '),
    async detect(input) {
      const due = deps.models.filter((m) => !m.surfaces || m.surfaces.includes(input.surface));
      if (input.tier === 'fast' || due.length === 0 || input.text.text.trim() === '') return base.detect(input);
      // the models' requests queue first; a failure of the detector calls them off
      const cancel = new AbortController();
      const signal = input.signal ? AbortSignal.any([input.signal, cancel.signal]) : cancel.signal;
      const asked = due.map((m) => {
        const p = deps.client && deps.loaded.has(m.name) ? askEntities(deps.client, m, { ...input, signal }) : null;
        p?.catch(() => undefined);
        return p ?? Promise.resolve({ fallback: 'model_not_loaded' });
      });
      let result: DetectorResult;
      try {
        result = await base.detect(input);
      } catch (err) {
        cancel.abort();
        throw err;
      }
      const answers = await Promise.all(asked);
      const notes: string[] = result.note ? [result.note] : [];
      let items = result.items;
      answers.forEach((a, i) => {
        const m = due[i]!;
        deps.observe?.run?.(m.name, input.tier, 'fallback' in a ? 'fallback' : 'full');
        if ('fallback' in a) {
          deps.observe?.fallback?.(m.name, a.fallback);
          notes.push(`extra_model=${m.name};reason=${a.fallback}`);
        } else items = merge(items, a.items);
      });
      const score = items.reduce((s, i) => (CONTEXT_ONLY_LABELS.has(i.label) ? s : Math.max(s, i.confidence)), 0);
      return { ...result, score, items, ...(notes.length ? { note: notes.join(';') } : {}) };
    },
  };
}

/** A model's entities as items (original offsets), within its own timeout; or why there are none. */
async function askEntities(
  client: ModelClient,
  model: ExtraModel,
  input: DetectorInput,
): Promise<{ items: FindingItem[] } | { fallback: string }> {
  const own = new AbortController();
  const timer = setTimeout(() => own.abort(new ExtraModelTimeoutError(model.name, model.timeoutMs)), model.timeoutMs);
  const call = modelCall(input);
  try {
    const windows = windowsOf(input, model.maxChars);
    const perWindow = await client.entities(
      model.name,
      windows.map((w) => w.text),
      { ...call, signal: call.signal ? AbortSignal.any([call.signal, own.signal]) : own.signal },
    );
    return { items: entityItems(input, model, windows, perWindow) };
  } catch (err) {
    if (err instanceof ExtraModelTimeoutError) return { fallback: 'timeout' };
    if (err instanceof ModelUnavailableError) return { fallback: err.reason };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function entityItems(
  input: DetectorInput,
  model: ExtraModel,
  windows: { start: number }[],
  perWindow: Entity[][],
): FindingItem[] {
  const items = new Map<string, FindingItem>();
  const source = extraSource(model);
  perWindow.forEach((entities, w) => {
    const offset = windows[w]!.start;
    for (const e of entities) {
      const span = input.text.toOriginal(offset + e.start, offset + e.end);
      const key = `${span[0]}:${span[1]}:${e.label}`;
      // overlapping pieces see the same entity twice: the more confident reading stays
      const seen = items.get(key);
      if (seen && seen.confidence >= e.confidence) continue;
      items.set(key, {
        text: input.text.original.slice(span[0], span[1]),
        label: e.label,
        confidence: round(e.confidence),
        source,
        span,
      });
    }
  });
  return [...items.values()];
}

/**
 * `found` merged into `items`: dropped where it overlaps an item of the detector's patterns (its winners),
 * and one item per span and label with the items of models (our NER, another operator model), the more
 * confident kept.
 */
export function merge(items: readonly FindingItem[], found: readonly FindingItem[]): FindingItem[] {
  const fromModel = (i: FindingItem) => i.source === 'ner' || i.source.startsWith('model:');
  const winners = items.filter((i) => !fromModel(i));
  const key = (i: FindingItem) => `${i.span[0]}:${i.span[1]}:${i.label}`;
  const byKey = new Map(items.filter(fromModel).map((i) => [key(i), i]));
  for (const f of withoutOverlaps([...found], winners)) {
    const had = byKey.get(key(f));
    if (!had || f.confidence > had.confidence) byKey.set(key(f), f);
  }
  return [...winners, ...byKey.values()].sort((a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1]);
}
