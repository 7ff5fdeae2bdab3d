/**
 * The small template language of the threat-family generators, and their expansion into rows.
 *
 * A template is a string with `{slot}` holes filled from the family's slot lists. Carrier templates
 * (documents for indirect injections) also hold `{P0}` / `{P1}` / `{P2}` — the start, middle and end
 * places where the planted sentence goes; `{P1:json}` inserts it JSON-escaped. The unused places
 * vanish (a line that held only an unused place is dropped). Templates are plain strings so that the
 * tests can prove a TRAIN and a VALIDATION generator share none.
 */
import { mulberry32, pick, type Rng } from '../../prng.ts';

/** The threat families with a generator pair (train / validation). */
export const THREAT_FAMILIES = [
  'jailbreak_roleplay',
  'instruction_override',
  'indirect_instruction',
  'multilingual',
] as const;
export type ThreatFamily = (typeof THREAT_FAMILIES)[number];
export type FamilySplit = 'train' | 'val';

export type Slots = Readonly<Record<string, readonly string[]>>;

/** One generator of one family: attack templates, their benign twins, the slots both fill. */
export interface FamilySpec {
  /** Sentences (or whole prompts) that attack; for `indirect_instruction` the planted sentences. */
  attacks: readonly string[];
  /** Benign twins: same surface, no attack; for `indirect_instruction` the benign planted sentences. */
  benign: readonly string[];
  slots: Slots;
  /** Documents the planted sentence goes into (indirect only); the same carriers hold both classes. */
  carriers?: readonly string[];
  /** A tag for `source` (e.g. the language); defaults to none. */
  tag?: string;
}

export interface FamilyRow {
  text: string;
  label: 0 | 1;
  family: ThreatFamily;
  split: FamilySplit;
  /** `<family>/<split>[/<tag>]/<attack|benign>/<index>` (+ `@carrier<index>/<place>` for documents). */
  template: string;
  /** Where the text reaches the firewall, for carriers: JSON tool output or a document. */
  surface?: 'tool_result' | 'document';
}

const SLOT = /\{([a-z_]+[0-9]?)\}/g;

/**
 * Fills every `{slot}` of `tpl` from `slots`.
 * @throws Error when the template names a slot the lists do not have.
 */
export function fill(tpl: string, slots: Slots, r: Rng): string {
  let out = tpl;
  // slot values may hold slots themselves (a request inside a framing); three rounds are plenty
  for (let round = 0; round < 3 && SLOT.test(out); round++) {
    SLOT.lastIndex = 0;
    out = out.replace(SLOT, (_, name: string) => {
      const list = slots[name];
      if (!list) throw new Error(`template slot {${name}} has no list: ${tpl}`);
      return pick(list, r);
    });
    SLOT.lastIndex = 0;
  }
  return out;
}

const PLACES = ['start', 'middle', 'end'] as const;
export type Place = (typeof PLACES)[number];

/** Puts `sentence` into a carrier at one place (`P0` start, `P1` middle, `P2` end); other places vanish. */
export function plant(carrier: string, sentence: string, place: Place): string {
  const k = PLACES.indexOf(place);
  const lines = carrier.split('\n').filter((l) => {
    const m = /^\s*\{P([0-2])(?::json)?\}\s*$/.exec(l);
    return !m || Number(m[1]) === k;
  });
  return lines
    .join('\n')
    .replace(/\{P([0-2])(:json)?\}/g, (_, n: string, json?: string) => {
      if (Number(n) !== k) return '';
      return json ? JSON.stringify(sentence).slice(1, -1) : sentence;
    })
    .replace(/ {2,}/g, ' ');
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

// Surface variations applied to both classes alike (so they carry no label signal).
const LEADS = ['Hi.', 'Hello!', 'Quick one:', 'OK.'];
const TAILS = ['Thanks.', 'Thank you!', ':)', 'Cheers.'];

function vary(text: string, r: Rng): string {
  const v = r();
  if (v < 0.1) return text.toLowerCase();
  if (v < 0.2) return `${pick(LEADS, r)} ${text}`;
  if (v < 0.3) return `${text} ${pick(TAILS, r)}`;
  return text;
}

function expandClass(
  spec: FamilySpec,
  label: 0 | 1,
  want: number,
  rng: Rng,
  prefix: string,
): Omit<FamilyRow, 'family' | 'split'>[] {
  const list = label === 1 ? spec.attacks : spec.benign;
  const seen = new Set<string>();
  const out: Omit<FamilyRow, 'family' | 'split'>[] = [];
  for (let attempt = 0; out.length < want && attempt < want * 30; attempt++) {
    const i = attempt % list.length;
    // a slot filled after a full stop starts a sentence
    let text = fill(list[i] as string, spec.slots, rng).replace(
      /(\. )(\p{Ll})/gu,
      (_, a: string, b: string) => a + b.toUpperCase(),
    );
    let template = `${prefix}/${label === 1 ? 'attack' : 'benign'}/${i}`;
    let surface: FamilyRow['surface'];
    if (spec.carriers?.length) {
      const c = Math.floor(rng() * spec.carriers.length);
      const place = pick(PLACES, rng);
      const carrier = spec.carriers[c] as string;
      text = plant(fill(carrier, spec.slots, rng), cap(text), place);
      template += `@carrier${c}/${place}`;
      surface = carrier.startsWith('{') ? 'tool_result' : 'document';
    } else text = vary(text, rng);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(surface ? { text, label, template, surface } : { text, label, template });
  }
  return out;
}

/**
 * Up to `count` distinct rows, half attacks and half benign twins (both classes are cut to the
 * smaller one, so a family is always balanced), cycling through the templates so each is used about
 * equally. Deterministic for a given spec, count and seed.
 */
export function expandFamily(
  spec: FamilySpec,
  family: ThreatFamily,
  split: FamilySplit,
  count: number,
  seed: number,
): FamilyRow[] {
  const rng = mulberry32(seed);
  const prefix = `${family}/${split}${spec.tag ? `/${spec.tag}` : ''}`;
  const half = Math.ceil(count / 2);
  const pos = expandClass(spec, 1, half, rng, prefix);
  const neg = expandClass(spec, 0, half, rng, prefix);
  const n = Math.min(pos.length, neg.length);
  const out: FamilyRow[] = [];
  for (let i = 0; i < n; i++)
    for (const r of [pos[i], neg[i]]) out.push({ ...(r as Omit<FamilyRow, 'family' | 'split'>), family, split });
  return out;
}
