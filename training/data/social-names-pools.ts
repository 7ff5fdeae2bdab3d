/**
 * Slot values of the social-text name generator (social-names.ts), split into a TRAIN and an EVAL pool
 * that share no value: first names and surnames (faker's lists, split by a hash of the name, plus
 * hand-written EVAL-only names that are in no list the gazetteer is built from), names that are also
 * common words, generic handles, hashtags, emoji and carriers (the wrapper a platform puts around a
 * message).
 */
import { allLocales } from '@faker-js/faker';
import { hashString } from '../../inference/hashing.ts';
import { fakerNameLists } from './social-names-gazetteer.ts';

export type Split = 'train' | 'eval';

export interface SocialPools {
  first: string[];
  last: string[];
  /** The subset of `first` / `last` from faker's English lists (most names in English chat). */
  enFirst: string[];
  enLast: string[];
  /** EVAL only: hand-written names in no faker list (empty for TRAIN). */
  unlistedFirst: string[];
  unlistedLast: string[];
  /** Names that are also common words, used as names ("will said …"). */
  twinNames: string[];
  handles: string[];
  hashtags: string[];
  emoji: string[];
  /** `{x}` is the message, `{H}` a handle. */
  carriers: string[];
}

/** Names that are common words too: TRAIN uses the first group (as names and as words), EVAL the second. */
const TWINS: Record<Split, string[]> = {
  train: ['will', 'mark', 'grace', 'bill', 'rose', 'may', 'jack', 'hope', 'ruby', 'amber', 'holly', 'lily'],
  eval: ['frank', 'joy', 'summer', 'june', 'dawn', 'pat', 'sue', 'art', 'hunter', 'chase', 'sunny', 'faith'],
};

/**
 * EVAL-only names written by us, for names outside the gazetteer (those that happen to be in faker's
 * lists are dropped at run time, so what is left measures names the gazetteer does not know).
 */
const EVAL_UNLISTED_FIRST = `oluwaseun thandiwe kwabena siobhan niamh aoife tadhg saoirse eilidh ruairi bronagh caoimhe dervla
ifeoma chidinma ngozi adaeze tendai farai rutendo kagiso lerato thabo sipho zanele nomvula mpho kofi yaw akosua
efua ama kwame abena folasade temitope olamide babajide chiamaka nnamdi obinna uchenna ebere amarachi zinhle
lwazi bongani nandi themba ayodele ketevan nino tamar giorgi levan irakli mariam eteri dato natia zurab tornike
sanjar dilnoza gulnara aziz timur bekzod nigora shahlo farrukh jasur kamola otabek malika rustam zarina`;
const EVAL_UNLISTED_LAST = `okonkwo adeyemi mahlangu dlamini nkosi mokoena oyelaran chukwu balogun achterberg vanterpool quigley
mcgillicuddy featherstonehaugh thistlewood okafor eze nwosu obi adebayo oyelowo mensah asante owusu boateng
appiah osei agyeman ndlovu khumalo zulu mthembu sithole ngcobo cele buthelezi beridze kapanadze tsiklauri
gelashvili lomidze karimov rakhimov yusupov tashkentov nazarov sultanov ergashev abdullaev qodirov`;

const GENERIC_HANDLES: Record<Split, string[]> = {
  train: [
    'pizzalover',
    'techguy',
    'gamer4life',
    'nightowl',
    'catmom',
    'coffeeaddict',
    'the_real_deal',
    'memequeen',
    'bookworm99',
    'gymrat',
    'dailyvibes',
    'sk8rboi',
    'foodie_nyc',
    'plantdad',
    'sunsetchaser',
    'lazy_panda',
  ],
  eval: [
    'tacotuesday',
    'codemonkey',
    'dogsofinsta',
    'earlybird',
    'tea_time',
    'vinylhead',
    'couchpotato',
    'xx_shadow_xx',
    'runner_up',
    'bakingfail',
    'moonchild',
    'retro_gamer',
    'wanderlust22',
    'bluejay',
    'hot_takes',
    'cloud9',
  ],
};
const HASHTAGS: Record<Split, string[]> = {
  train: [
    '#mondaymotivation',
    '#tbt',
    '#blessed',
    '#nofilter',
    '#goals',
    '#fyp',
    '#gameday',
    '#foodporn',
    '#ootd',
    '#squadgoals',
    '#weekendvibes',
    '#selfcare',
    '#throwback',
    '#lol',
    '#mood',
  ],
  eval: [
    '#wcw',
    '#fridayfeeling',
    '#relatable',
    '#viral',
    '#instagood',
    '#nomakeup',
    '#finals',
    '#roadtrip',
    '#petsofig',
    '#sundayfunday',
    '#latergram',
    '#studygram',
    '#hottake',
    '#facts',
    '#vibes',
  ],
};
const EMOJI: Record<Split, string[]> = {
  train: ['😂', '❤️', '🔥', '😭', '🙏', '💯', '😍', '🎉', '👀', '🥺'],
  eval: ['🤣', '💀', '✨', '😅', '👏', '🥰', '😎', '🙌', '💕', '😤'],
};
const CARRIERS: Record<Split, string[]> = {
  train: ['{x}', '{x}', '{x}', 'rt {H}: {x}', '{x} via {H}', '{H} {x}', '> {x}'],
  eval: ['{x}', '{x}', '{x}', '{x} — {H}', 'quote from {H}: {x}', '{x}\n\nsent from my phone', '[reply] {x}'],
};

const splitOf = (name: string): Split => (hashString(0x5eed, name) % 5 === 0 ? 'eval' : 'train') as Split;
const ASCII_NAME = /^[a-z]{3,12}$/;

let cache: Record<Split, SocialPools> | null = null;

/** The TRAIN or EVAL slot values (deterministic). */
export function socialPools(split: Split): SocialPools {
  if (!cache) cache = buildPools();
  return cache[split];
}

function buildPools(): Record<Split, SocialPools> {
  const { first, last } = fakerNameLists();
  const known = new Set([...first, ...last]);
  const twins = new Set([...TWINS.train, ...TWINS.eval]);
  const usable = (w: string): boolean => ASCII_NAME.test(w) && !twins.has(w);
  const firstNames = first.filter(usable);
  const lastNames = last.filter(usable);
  const en = allLocales.en?.person as { first_name?: unknown; last_name?: unknown } | undefined;
  const enWords = (x: unknown): Set<string> =>
    new Set((Array.isArray(x) ? x : Object.values((x ?? {}) as object).flat()).map((n) => String(n).toLowerCase()));
  const enFirst = enWords(en?.first_name);
  const enLast = enWords(en?.last_name);
  const byWords = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '' && !known.has(w));
  const pools = {} as Record<Split, SocialPools>;
  for (const split of ['train', 'eval'] as const) {
    const f = firstNames.filter((w) => splitOf(w) === split);
    const l = lastNames.filter((w) => splitOf(w) === split);
    const uf = split === 'eval' ? byWords(EVAL_UNLISTED_FIRST) : [];
    const ul = split === 'eval' ? byWords(EVAL_UNLISTED_LAST) : [];
    f.push(...uf);
    l.push(...ul);
    pools[split] = {
      first: f,
      last: l,
      enFirst: f.filter((w) => enFirst.has(w)),
      enLast: l.filter((w) => enLast.has(w)),
      unlistedFirst: uf,
      unlistedLast: ul,
      twinNames: TWINS[split],
      handles: GENERIC_HANDLES[split].map((h) => `@${h}`),
      hashtags: HASHTAGS[split],
      emoji: EMOJI[split],
      carriers: CARRIERS[split],
    };
  }
  return pools;
}

/** EVAL names that are in no faker list (so not in the gazetteer). */
export function unlistedEvalNames(): Set<string> {
  const { first, last } = fakerNameLists();
  const known = new Set([...first, ...last]);
  const all = `${EVAL_UNLISTED_FIRST} ${EVAL_UNLISTED_LAST}`.split(/\s+/).filter((w) => w !== '' && !known.has(w));
  return new Set(all);
}
