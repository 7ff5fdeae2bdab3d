/**
 * Builds pii-ner's name gazetteer (`models/pii-ner/names.tsv`, read at serving time by
 * inference/name-gazetteer.ts) from permissive lists: the first names and surnames of every
 * @faker-js/faker locale (MIT) and, as common (non-name) words, faker's English word lists plus the
 * hand-written chat and function words below. A word that is both a name and a common word ("will",
 * "mark", "grace", "brown") carries both flags, so the model learns to look at the context.
 */
import { allLocales } from '@faker-js/faker';

/**
 * Frequent English and chat words (ours): the C flag, together with faker's English word lists. The
 * last line holds what the tokenizer leaves of contractions ("Don't" → Don ' t): "don" is a name too.
 */
const COMMON_WORDS = `a about above after again against all also am an and any are around as ask at away back bad
be because been before being below best better between big bill both but buy by call came can cant care case
change check close come could day days did do does doing dont done down each early end even ever every fall
far feel few find fine first for free friend from full fun get give go going good got great had half happy
hard has have he help her here hers herself him himself his hold home hope how i if im in into is it its
itself just keep kind know last late least leave left less let life like line little live long look lot love
made make man many mark may me might mine miss more most much must my myself need never new next nice night
no nor not now of off oh ok okay old on once one only open or other our ours out over own part pay people
play please pretty put rather read real really right rose run said same saw say see seem seen set she
should show side since so some soon still stop such sure take talk tell than thank thanks that the their
them then there these they thing think this those though through till time to today told too took top
true try turn two under until up us use very wait want was watch way we well went were what when where
which while who whom why will win wish with without word work would yeah year yes yet you your yours
lol lmao lmaoo omg idk tbh imo smh ngl fr rn btw brb ttyl thx ty pls plz u ur r ya yall gonna wanna gotta
dm rt cc gm gn bday irl fyi asap hmu wyd wbu nvm ikr jk dude bro sis fam bestie squad vibe vibes mood
literally honestly lowkey highkey bet cap goat slay stan tea sus yeet hype meme post posted repost link bio
follow follower followers like likes retweet reply thread tweet story stories live stream video pic pics
photo selfie emoji hashtag trending viral online offline app phone text texted call called chat group
grace joy hope faith summer june april august dawn frank pat sue art jack chase hunter king rusty sunny
will may mark bill rose ruby amber jade iris violet holly ivy daisy lily hazel olive pearl crystal penny
sky river storm rain snow autumn winter spring angel honey sugar candy cookie baby buddy champ chief boss
guy guys girl girls boy boys man woman men women mom mum dad mama papa grandma grandpa aunt uncle cousin
brother sister son daughter wife husband boyfriend girlfriend bf gf coach teacher doctor nurse officer
don won isn doesn didn wasn weren hasn hadn shouldn couldn wouldn aren ain haven mustn needn ll ve re`;

const flat = (x: unknown): string[] =>
  x === undefined || x === null
    ? []
    : Array.isArray(x)
      ? x.flat(3).map(String)
      : typeof x === 'object'
        ? Object.values(x as Record<string, unknown>).flatMap(flat)
        : [String(x)];

const WORD = /^[\p{L}\p{M}]{2,}$/u;

/** Single words of a (possibly hyphenated or multi-word) name, lowercased, two letters or more. */
function words(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[\s\-'\u2019.]+/u)
    .filter((w) => WORD.test(w));
}

/** Lowercased first names and surnames of every faker locale (sorted, deterministic). */
export function fakerNameLists(): { first: string[]; last: string[] } {
  const first = new Set<string>();
  const last = new Set<string>();
  for (const key of Object.keys(allLocales).sort()) {
    const p = (allLocales as Record<string, { person?: Record<string, unknown> }>)[key]?.person;
    if (!p) continue;
    for (const n of flat(p.first_name)) for (const w of words(n)) first.add(w);
    for (const n of flat(p.middle_name)) for (const w of words(n)) first.add(w);
    for (const n of flat(p.last_name)) for (const w of words(n)) last.add(w);
  }
  return { first: [...first].sort(), last: [...last].sort() };
}

/** Common words: the hand list above plus faker's English word lists (single words only). */
export function commonWords(): string[] {
  const out = new Set<string>(COMMON_WORDS.split(/\s+/).filter((w) => w !== ''));
  for (const w of flat(allLocales.en?.word)) if (/^[a-z]{2,}$/.test(w)) out.add(w);
  return [...out].sort();
}

/** The gazetteer file's text: `word<TAB>flags` lines (flags ⊆ FLC), sorted, with a header comment. */
export function buildGazetteerTsv(): string {
  const { first, last } = fakerNameLists();
  const flags = new Map<string, string>();
  const add = (w: string, f: string): void => {
    const cur = flags.get(w) ?? '';
    if (!cur.includes(f)) flags.set(w, cur + f);
  };
  for (const w of first) add(w, 'F');
  for (const w of last) add(w, 'L');
  for (const w of commonWords()) add(w, 'C');
  const order = (f: string): string => ['F', 'L', 'C'].filter((x) => f.includes(x)).join('');
  const lines = [...flags.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([w, f]) => `${w}\t${order(f)}`);
  return `# pii-ner name gazetteer: word<TAB>flags (F first name, L surname, C common word); built by training/data/social-names-gazetteer.ts from @faker-js/faker (MIT) name and word lists\n${lines.join('\n')}\n`;
}
