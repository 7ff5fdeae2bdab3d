/**
 * PII: validated regex recognizers (cards by Luhn, IBAN by mod-97, SSN area rules, VIN check digit,
 * IPs, MACs, e-mail, phones, bank accounts, street addresses) on the main thread, plus the pool's
 * NER model for PERSON and LOCATION/ADDRESS. Regex items win where the two overlap. When the NER
 * model cannot answer, the regex items stand alone and the result carries a note.
 */
import type { ModelEntry, Thresholds } from '../../inference/manifest.ts';
import type { Entity } from '../../inference/token-classifier.ts';
import type { Detector, DetectorInput, DetectorResult, FindingItem } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { andThen, runSteps } from '../../lib/steps.ts';
import { piiRegexSteps } from './pii-regex.ts';
import { modelCall, round, windowsOf } from './scoring.ts';

/**
 * Defaults when no policy applies: any validated identifier warns, a strong one (card, IBAN, SSN)
 * flags; PII never blocks by default (block_above 1 cannot be exceeded) — blocking on PII is a
 * policy choice.
 */
export const PII_THRESHOLDS: Thresholds = { warn_above: 0.5, flag_above: 0.9, block_above: 1 };

/**
 * Labels that do not make content personal data by themselves: a place or an organisation named in
 * passing ("What is the weather in Paris?"). Their items are reported, so a policy can act on them
 * (`label_in`), but they do not raise the detector's score, so by default they neither warn nor flag.
 * A street address (`ADDRESS`) and a person's name do.
 */
export const CONTEXT_ONLY_LABELS: ReadonlySet<string> = new Set(['LOCATION', 'ORGANIZATION']);

/** NER labels the model emits that we report (others, e.g. ORGANIZATION, are kept too). */
const NER_MIN_CONFIDENCE = 0.5;

export function createPiiDetector(
  ner: ModelEntry | null,
  models: ModelClient | null,
  onUnavailable?: (reason: string) => void,
): Detector {
  return {
    name: 'pii',
    version: '1.0.0',
    model: ner ? `regex; ${ner.id}@${ner.version} (ner)` : 'regex',
    kind: 'entities',
    category: 'pii',
    surfaces: ALL_SURFACES,
    thresholds: PII_THRESHOLDS,
    frameworks: frameworksFor('pii'),
    detect(input) {
      const regex = () => runSteps(piiRegexSteps(input), input.pace);
      if (!ner || !models || input.text.text.trim() === '') return andThen(regex(), (items) => finish(items, []));
      const windows = windowsOf(input, ner.max_chars);
      // The NER request is queued now; the recognizers run in a microtask, once every detector of the
      // scan has queued its model requests, while the workers infer.
      const entities = models.entities(
        ner.id,
        windows.map((w) => w.text),
        modelCall(input),
      );
      const nerFound = entities.then(
        (perWindow) => ({ items: nerItems(input, windows, perWindow), note: undefined }),
        (err: unknown) => {
          if (!(err instanceof ModelUnavailableError)) throw err;
          onUnavailable?.(err.reason);
          return { items: [], note: `ner_unavailable;reason=${err.reason}` };
        },
      );
      const regexItems = Promise.resolve().then(regex);
      return Promise.all([regexItems, nerFound]).then(([regex, found]) => finish(regex, found.items, found.note));
    },
  };
}

/**
 * The items of `candidates` that overlap none of `winners`: for [s, e), the winners starting before e less
 * those ending by s, counted by binary search over their sorted starts and ends. A text full of PII has
 * thousands of each, which a pairwise check made quadratic (140 ms of one 500,000-character scan's main thread).
 */
export function withoutOverlaps(candidates: FindingItem[], winners: readonly FindingItem[]): FindingItem[] {
  if (winners.length === 0 || candidates.length === 0) return candidates;
  const starts = winners.map((w) => w.span[0]).sort((a, b) => a - b);
  const ends = winners.map((w) => w.span[1]).sort((a, b) => a - b);
  return candidates.filter((c) => {
    // winners overlapping [s, e): those starting before e, less those ending at or before s
    const [s, e] = c.span;
    return countBelow(starts, e) - countBelow(ends, s + 1) === 0;
  });
}

/** How many sorted values are below `x`. */
function countBelow(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function nerItems(input: DetectorInput, windows: { start: number }[], perWindow: Entity[][]): FindingItem[] {
  const items: FindingItem[] = [];
  const seen = new Set<string>();
  perWindow.forEach((entities, w) => {
    const offset = windows[w]!.start;
    for (const e of entities) {
      if (e.confidence < NER_MIN_CONFIDENCE) continue;
      const span = input.text.toOriginal(offset + e.start, offset + e.end);
      const key = `${span[0]}:${span[1]}:${e.label}`;
      // Overlapping windows see the same entity twice.
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({
        text: input.text.original.slice(span[0], span[1]),
        label: e.label,
        confidence: round(e.confidence),
        source: 'ner',
        span,
      });
    }
  });
  return items;
}

function finish(regexItems: FindingItem[], nerFound: FindingItem[], note?: string): DetectorResult {
  const items = [...regexItems, ...withoutOverlaps(nerFound, regexItems)].sort(
    (a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1],
  );
  const score = items.reduce((m, i) => (CONTEXT_ONLY_LABELS.has(i.label) ? m : Math.max(m, i.confidence)), 0);
  return { detector: 'pii', score, items, ...(note ? { note } : {}) };
}
