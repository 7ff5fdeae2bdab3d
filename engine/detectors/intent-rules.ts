/**
 * The canonical injection intents as rules, in every language of the lexicons (`intent-lexicon.json`,
 * `harm-lexicon.json`; toxicity's terms in `toxic-lexicon.json`): an anchor word (an "ignore" verb, a
 * "reveal" verb, a persona switch, a mode word, a harmful topic) with the words that make it an attack
 * (whose instructions, a secret, "no restrictions", "enabled", a request cue) within {@link WINDOW}
 * characters on either side — either order, since many languages put the object first — and none of its
 * cancelling words ("protect", "history of"). "Ignore all previous instructions", "vergiss deine
 * Anweisungen", "忽略之前的所有指令" and "이전 지시를 무시하고" are one rule. A statistical model misses
 * such a sentence in a language it saw little of; the rule does not, and its finding names the intent and
 * the words.
 *
 * Matching is on the engine's normalised text, lowercased code unit by code unit (offsets stay those of
 * the normalised text). A term of a space-separated script matches at a word start and may continue
 * (stems: "anweisung" matches "Anweisungen"), except a Latin, Cyrillic or Greek term of up to
 * four characters (term-index.ts `SHORT`), which must be a whole word; a term of a script without spaces (Han, kana,
 * Thai, …) or of Arabic or Hebrew (articles and conjunctions written onto the word) matches anywhere.
 */
import { readFileSync } from 'node:fs';
import type { Thresholds } from '../../inference/manifest.ts';
import { runSteps, type Steps } from '../../lib/steps.ts';
import { fromRoot } from '../../lib/package-root.ts';
import { surfaceGroup, type DetectorInput, type DetectorResult, type SurfaceGroup } from '../detector.ts';
import { itemFor } from './scoring.ts';
import { lowerUnits, TermIndex } from './term-index.ts';

export { lowerUnits, termsMatcher } from './term-index.ts';

export interface IntentLexicon {
  languages: string[];
  classes: Record<string, Record<string, string[]>>;
}

/** One rule: the anchor class, the classes that must all appear near it, and what it then scores. */
export interface Rule {
  intent: IntentName;
  anchor: string;
  need: string[];
  level: Level;
  /** classes any one of which, also near the anchor, raises the level to `boostedLevel` */
  boost?: string[];
  boostedLevel?: Level;
  /** classes any one of which, near the anchor, cancels the match ("how to protect against …") */
  forbid?: string[];
}

export type IntentName =
  'instruction_override' | 'prompt_leak' | 'persona_switch' | 'mode_switch' | 'harmful_request' | 'toxic';
export type Level = 'warn' | 'flag' | 'block';

/** The prompt-injection detector's rules (lexicon: `intent-lexicon.json` + `harm-lexicon.json`). */
export const INJECTION_RULES: readonly Rule[] = [
  // "ignore the rules", "override the default" are everyday; whose rules ("your", "previous", "all") makes it an attack
  {
    intent: 'instruction_override',
    anchor: 'ignore_verb',
    need: ['instruction_noun', 'prior_marker'],
    level: 'flag',
    boost: ['new_task'],
    boostedLevel: 'block',
  },
  { intent: 'prompt_leak', anchor: 'reveal_verb', need: ['secret_noun', 'prior_marker'], level: 'flag' },
  { intent: 'persona_switch', anchor: 'persona_switch', need: ['unrestricted'], level: 'block' },
  { intent: 'mode_switch', anchor: 'mode_word', need: ['mode_on'], level: 'flag' },
  // a request for help with harm, however it is framed (past tense, fiction, another language)
  { intent: 'harmful_request', anchor: 'harm_topic', need: ['request_cue'], forbid: ['benign_cue'], level: 'flag' },
];

/**
 * The toxicity detector's rules (lexicon: `toxic-lexicon.json`, the team's insult, slur and threat terms
 * in 16 languages, pruned of terms that occur in benign sentences: `npm run train:toxic-lexicon`): a
 * term flags, a term with an innocent homonym only warns.
 */
export const TOXICITY_RULES: readonly Rule[] = [
  { intent: 'toxic', anchor: 'toxic_term', need: [], level: 'flag' },
  { intent: 'toxic', anchor: 'toxic_term_homonym', need: [], level: 'warn' },
];

/** How far (characters, either side of the anchor) the words that complete a rule may be. */
export const WINDOW = 60;

export interface IntentHit {
  intent: IntentName;
  level: Level;
  /** [start, end) in the scored text: from the first to the last word of the match */
  start: number;
  end: number;
}

export interface IntentRules {
  /** The strongest rule match of `text` (normalised text), or null. */
  match(text: string): IntentHit | null;
}

const LEVEL_RANK: Record<Level, number> = { warn: 1, flag: 2, block: 3 };

/**
 * The level a match stands for on a surface group: one lower in documents, tool results and MCP
 * content, where "please disregard the previous email" and "enable developer mode" are everyday text.
 */
export function levelOn(level: Level, group: SurfaceGroup): Level | null {
  if (group === 'prompt') return level;
  return level === 'block' ? 'flag' : level === 'flag' ? 'warn' : null;
}

/** A score on `t` for a level: halfway between that level's threshold and the next (1 above block). */
export function levelScore(level: Level, t: Thresholds): number {
  if (level === 'warn') return (t.warn_above + t.flag_above) / 2;
  if (level === 'flag') return (t.flag_above + t.block_above) / 2;
  return (t.block_above + 1) / 2;
}

/** @throws Error when a rule names a class the lexicon does not have */
export function compileIntentRules(lexicon: IntentLexicon, rules: readonly Rule[] = INJECTION_RULES): IntentRules {
  const ids = new Map<string, number>();
  const index = new TermIndex();
  for (const rule of rules)
    for (const c of [rule.anchor, ...rule.need, ...(rule.boost ?? []), ...(rule.forbid ?? [])]) {
      if (ids.has(c)) continue;
      const byLang = lexicon.classes[c];
      if (!byLang) throw new Error(`intent lexicon: no class "${c}"`);
      ids.set(c, ids.size);
      for (const term of Object.values(byLang).flat()) index.add(term, ids.get(c)!);
    }
  /** a hit of class `c` within [from, to) that does not overlap `not` */
  const find = (
    hits: [number, number][][],
    c: string,
    from: number,
    to: number,
    not: [number, number],
  ): [number, number] | null => {
    for (const h of hits[ids.get(c)!]!) {
      if (h[0] >= to) return null;
      if (h[0] >= from && h[1] <= to && (h[1] <= not[0] || h[0] >= not[1])) return h;
    }
    return null;
  };
  return {
    match(raw) {
      const text = lowerUnits(raw);
      const hits = index.scan(text, ids.size);
      let best: IntentHit | null = null;
      for (const rule of rules) {
        if (best && LEVEL_RANK[best.level] >= LEVEL_RANK[rule.boostedLevel ?? rule.level]) continue;
        for (const a of hits[ids.get(rule.anchor)!]!) {
          const from = Math.max(0, a[0] - WINDOW);
          const to = Math.min(text.length, a[1] + WINDOW);
          let start = a[0];
          let end = a[1];
          let ok = true;
          for (const c of rule.need) {
            const hit = find(hits, c, from, to, a);
            if (!hit) {
              ok = false;
              break;
            }
            start = Math.min(start, hit[0]);
            end = Math.max(end, hit[1]);
          }
          if (!ok || rule.forbid?.some((c) => find(hits, c, from, to, a))) continue;
          let level = rule.level;
          if (rule.boost && rule.boostedLevel && rule.boost.some((c) => find(hits, c, from, to, a)))
            level = rule.boostedLevel;
          if (!best || LEVEL_RANK[level] > LEVEL_RANK[best.level]) best = { intent: rule.intent, level, start, end };
          if (LEVEL_RANK[level] === LEVEL_RANK.block) return best;
        }
      }
      return best;
    },
  };
}

/**
 * The lexicon this repository ships: the injection intents (`intent-lexicon.json`) and requests for
 * harmful help (`harm-lexicon.json`), in engine/detectors/, written by the team.
 */
export function loadIntentLexicon(): IntentLexicon {
  const read = (name: string): IntentLexicon =>
    JSON.parse(readFileSync(fromRoot(`engine/detectors/${name}`), 'utf8')) as IntentLexicon;
  const a = read('intent-lexicon.json');
  const b = read('harm-lexicon.json');
  return { languages: [...new Set([...a.languages, ...b.languages])], classes: { ...a.classes, ...b.classes } };
}

/** The toxicity detector's term lexicon (`toxic-lexicon.json`, written by `npm run train:toxic-lexicon`). */
export function loadToxicLexicon(): IntentLexicon {
  return JSON.parse(readFileSync(fromRoot('engine/detectors/toxic-lexicon.json'), 'utf8')) as IntentLexicon;
}

/** Characters per step of a long text; pieces overlap by enough for any match to lie whole in one. */
const PIECE = 16_384;
const OVERLAP = 4 * WINDOW + 256;

/** The strongest match over the whole text, one piece per step (a long text is scored paced). */
export function* intentSteps(rules: IntentRules, text: string): Steps<IntentHit | null> {
  let best: IntentHit | null = null;
  for (let at = 0; at < text.length; at += PIECE - OVERLAP) {
    const hit = rules.match(text.slice(at, at + PIECE));
    if (hit && (!best || LEVEL_RANK[hit.level] > LEVEL_RANK[best.level]))
      best = { ...hit, start: hit.start + at, end: hit.end + at };
    if (best?.level === 'block' || at + PIECE >= text.length) break;
    yield;
  }
  return best;
}

/** The intent match of the input's normalised text: at once, or paced for a long text. */
export function intentMatch(
  rules: IntentRules | null,
  input: DetectorInput,
): IntentHit | null | Promise<IntentHit | null> {
  return rules ? runSteps(intentSteps(rules, input.text.text), input.pace) : null;
}

/**
 * The result with a rule match folded in: score = max(model score, the match's level on `thresholds`),
 * and an item naming the intent over the matched words.
 */
export function withIntent(
  input: DetectorInput,
  result: DetectorResult,
  hit: IntentHit | null,
  thresholds: Thresholds,
  source: string,
): DetectorResult {
  const level = hit && levelOn(hit.level, surfaceGroup(input.surface));
  if (!hit || !level) return result;
  const score = levelScore(level, result.thresholds ?? thresholds);
  const window = { text: input.text.text.slice(hit.start, hit.end), start: hit.start, end: hit.end };
  const item = itemFor(input, window, hit.intent, score, source);
  return { ...result, score: Math.max(result.score, score), items: [...result.items, item] };
}
