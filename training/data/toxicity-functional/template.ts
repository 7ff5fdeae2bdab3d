/**
 * Functional toxicity data (issue 18): per functionality (what a hateful or a benign message does, after
 * the HateCheck taxonomy) templates over protected-group targets and slot values. A TRAIN spec and a
 * VALIDATION spec share no template, target or slot value (test/unit/toxicity-functional.test.ts), so
 * that validation on a functionality predicts wording the models never saw.
 *
 * Placeholders: `{many}` a group ("Muslims"), `{one}` one member ("Muslim", used as "a {one}"), `{adj}`
 * the group as an adjective where the spec gives one (else `{many}`), and `{slot}` for any key of
 * `slots`. Label 1 = toxic (hateful, abusive or threatening), 0 = benign.
 */
import { pick, shuffleInPlace, mulberry32, type Rng } from '../../prng.ts';

/** Hateful or abusive (label 1). */
export const TOXIC_FUNCTIONALITIES = [
  'derogation',
  'implicit_derogation',
  'dehumanisation',
  'threat',
  'negated_positive',
  'hate_question',
  'hate_opinion',
  'abuse_individual',
] as const;

/** Benign twins (label 0): the same targets and words without the hostility. */
export const BENIGN_FUNCTIONALITIES = [
  'negated_hate',
  'counter_speech',
  'quoting_report',
  'identity_neutral',
  'identity_positive',
  'homonym',
  'reclaimed',
  'object_abuse',
] as const;

export type ToxicFunctionality = (typeof TOXIC_FUNCTIONALITIES)[number];
export type BenignFunctionality = (typeof BENIGN_FUNCTIONALITIES)[number];
/** Obfuscated spelling of a hateful row's words (label 1): added spaces, leet, swapped, dropped characters, no word boundaries. */
export const OBFUSCATED = ['obf_spaces', 'obf_leet', 'obf_swap', 'obf_drop', 'obf_joined'] as const;
export type ObfuscatedFunctionality = (typeof OBFUSCATED)[number];
export type Functionality = ToxicFunctionality | BenignFunctionality | ObfuscatedFunctionality;

export interface Target {
  /** plural noun phrase: "Muslims", "gay men" */
  many: string;
  /** one member, used after "a"/"an"/"the": "Muslim", "gay man" */
  one: string;
  /** adjective form where natural: "Muslim", "gay"; defaults to `many` */
  adj?: string;
}

export interface ToxSpec {
  targets: readonly Target[];
  /** templates per functionality (homonym, reclaimed and object_abuse templates need not use a target) */
  templates: Readonly<Record<ToxicFunctionality | BenignFunctionality, readonly string[]>>;
  slots: Readonly<Record<string, readonly string[]>>;
}

export interface FunctionalRow {
  text: string;
  label: 0 | 1;
  functionality: Functionality;
}

export type Split = 'train' | 'val';

/** Each `{slot}` of a template filled with a value of its slot list; `fixed` answers first (a target's forms). */
export function fillSlots(
  template: string,
  slots: Readonly<Record<string, readonly string[]>>,
  rng: Rng,
  fixed: (key: string) => string | undefined = () => undefined,
): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = fixed(key);
    if (value !== undefined) return value;
    const values = slots[key];
    if (!values) throw new Error(`template "${template}": no slot {${key}}`);
    return pick(values, rng);
  });
}

/** Up to `n` texts from `make` that `seen` does not hold yet (at most 20 tries per text), added to `seen`. */
export function distinctTexts(n: number, make: () => string, seen: Set<string>): string[] {
  const out: string[] = [];
  for (let tries = 0; out.length < n && tries < n * 20; tries++) {
    const text = make();
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/** Fills one template: the target's forms, then each `{slot}` with a value of its slot list. */
export function fill(template: string, target: Target, slots: ToxSpec['slots'], rng: Rng): string {
  const forms: Record<string, string> = { many: target.many, one: target.one, adj: target.adj ?? target.many };
  const text = fillSlots(template, slots, rng, (key) => forms[key]);
  // "a" before a vowel-initial target ("an Arab"), sentence-initial capital for templates that open with one
  const t = text.replace(/\b([Aa]) (?=[aeioAEIO])/g, '$1n ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

const LEET: Record<string, string> = { a: '4', e: '3', i: '1', o: '0', s: '5', t: '7', g: '9' };

/** The longest words of a text (the content words an obfuscator targets). */
function keyWords(text: string, n: number): string[] {
  const words = [...new Set(text.match(/[A-Za-z]{4,}/g) ?? [])];
  return words.sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, n);
}

/** One spelling variation applied to one or two content words (HateCheck's spelling variations). */
export function obfuscate(text: string, kind: ObfuscatedFunctionality, rng: Rng): string {
  const words = keyWords(text, 1 + Math.floor(rng() * 2));
  if (kind === 'obf_joined') return text.replace(/ (?=\S)/g, (s) => (rng() < 0.7 ? '' : s));
  let out = text;
  for (const w of words) {
    let v = w;
    const i = 1 + Math.floor(rng() * (w.length - 2));
    if (kind === 'obf_spaces') v = [...w].join(' ');
    else if (kind === 'obf_leet') v = [...w].map((c) => LEET[c.toLowerCase()] ?? c).join('');
    else if (kind === 'obf_swap') v = w.slice(0, i) + w.charAt(i + 1) + w.charAt(i) + w.slice(i + 2);
    else if (kind === 'obf_drop') v = w.slice(0, i) + w.slice(i + 1);
    out = out.replace(w, v);
  }
  return out;
}

/**
 * `count` rows of a spec: toxic and benign functionalities in equal halves, each functionality an even
 * share; `obfuscatedShare` of the toxic half are obfuscated copies of toxic rows (a kind per row).
 */
export function expand(spec: ToxSpec, count: number, seed: number, obfuscatedShare = 0.25): FunctionalRow[] {
  const rng = mulberry32(seed);
  const out: FunctionalRow[] = [];
  const seen = new Set<string>();
  const add = (f: Functionality, label: 0 | 1, n: number, make: () => string): void => {
    for (const text of distinctTexts(n, make, seen)) out.push({ text, label, functionality: f });
  };
  const half = Math.floor(count / 2);
  const obf = Math.round(half * obfuscatedShare);
  const plainToxic = half - obf;
  const row = (f: ToxicFunctionality | BenignFunctionality) => () =>
    fill(pick(spec.templates[f], rng), pick(spec.targets, rng), spec.slots, rng);
  for (const f of TOXIC_FUNCTIONALITIES) add(f, 1, Math.round(plainToxic / TOXIC_FUNCTIONALITIES.length), row(f));
  for (const f of BENIGN_FUNCTIONALITIES) add(f, 0, Math.round(half / BENIGN_FUNCTIONALITIES.length), row(f));
  for (const kind of OBFUSCATED)
    add(kind, 1, Math.round(obf / OBFUSCATED.length), () => {
      const f = pick(TOXIC_FUNCTIONALITIES, rng);
      return obfuscate(row(f)(), kind, rng);
    });
  return shuffleInPlace(out, rng);
}
