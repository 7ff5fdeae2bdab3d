/**
 * Generated hard negatives: benign texts that contain the trigger words of prompt-injection and
 * toxicity detectors ("ignore", "system prompt", "password", "instructions", role-play, security
 * discussions; "kill the process", identity terms in neutral statements ...). Written for this
 * project from templates with slot lists, expanded with a seeded PRNG.
 *
 * Each template is either a TRAIN template or an EVAL template (every third template, by position
 * within its category, is EVAL), so that the items a model is evaluated on come from sentence
 * patterns it never saw in training — not just fresh slot fillings of the same patterns.
 *
 * The templates live in hard-negatives/, one file per family, with the slot lists they fill.
 */
import { mulberry32, pick } from '../prng.ts';
import { CODE_AND_EVERYDAY_TEMPLATES } from './hard-negatives/injection-code-and-everyday.ts';
import { OVERRIDE_AND_CORRECTION_TEMPLATES } from './hard-negatives/injection-overrides-and-corrections.ts';
import { ROLEPLAY_AND_SECURITY_TEMPLATES } from './hard-negatives/injection-roleplay-and-security.ts';
import { TRIGGER_WORD_TEMPLATES } from './hard-negatives/injection-trigger-words.ts';
import type { Template } from './hard-negatives/template.ts';
import { TOXICITY_TEMPLATES } from './hard-negatives/toxicity.ts';

export interface HardNegative {
  text: string;
  template: string;
  category: string;
}

const p = pick;

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

// The order fixes each template's id (its position within its category) and the order expansion
// cycles through them: changing it changes the generated sets.
const INJECTION_TEMPLATES: Template[] = [
  ...TRIGGER_WORD_TEMPLATES,
  ...ROLEPLAY_AND_SECURITY_TEMPLATES,
  ...OVERRIDE_AND_CORRECTION_TEMPLATES,
  ...CODE_AND_EVERYDAY_TEMPLATES,
];

function expand(templates: Template[], prefix: string, heldOut: boolean, count: number, seed: number): HardNegative[] {
  const byCat = new Map<string, number>();
  const selected: { t: Template; id: string }[] = [];
  for (const t of templates) {
    const k = byCat.get(t.category) ?? 0;
    byCat.set(t.category, k + 1);
    const isEval = k % 3 === 2;
    if (isEval === heldOut) selected.push({ t, id: `${prefix}/${t.category}/${k}` });
  }
  const rng = mulberry32(seed);
  const seen = new Set<string>();
  const out: HardNegative[] = [];
  let attempts = 0;
  while (out.length < count && attempts < count * 20) {
    attempts++;
    const s = selected[attempts % selected.length] as { t: Template; id: string };
    let text = s.t.make(rng);
    const v = rng();
    if (v < 0.12) text = text.toLowerCase();
    else if (v < 0.2)
      text = `${cap(p(['hey', 'hi', 'quick question', 'hello', 'ok so'], rng))}, ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
    else if (v < 0.26) text = `${text} Thanks!`;
    if (seen.has(text)) continue;
    seen.add(text);
    out.push({ text, template: s.id, category: s.t.category });
  }
  return out;
}

/** Injection hard negatives for training (TRAIN templates). */
export function injectionHardNegativesTrain(count = 2400, seed = 1001): HardNegative[] {
  return expand(INJECTION_TEMPLATES, 'pi', false, count, seed);
}

/** Injection hard negatives for evaluation (EVAL templates only, disjoint from training). */
export function injectionHardNegativesEval(count = 480, seed = 2002): HardNegative[] {
  return expand(INJECTION_TEMPLATES, 'pi', true, count, seed);
}

export function toxicityHardNegativesTrain(count = 1200, seed = 3003): HardNegative[] {
  return expand(TOXICITY_TEMPLATES, 'tox', false, count, seed);
}

export function toxicityHardNegativesEval(count = 360, seed = 4004): HardNegative[] {
  return expand(TOXICITY_TEMPLATES, 'tox', true, count, seed);
}
