/**
 * Generated social-media text with PERSON spans, for pii-ner: tweets, chat messages and forum comments,
 * mostly lowercase, with @handles, #hashtags, emoji, typos, elongations ("sooo", "sarahhh"), all-caps
 * shouting, names that are common words ("will", "grace") next to benign twins where the word is not
 * a name, and messages with no name at all (for precision).
 *
 * TRAIN and EVAL share no template and no slot value (social-names-pools.ts: name lists split by a hash
 * of the name, EVAL-only names outside the gazetteer, separate handles, hashtags, emoji, carriers and
 * name/word twins).
 *
 * Labelling convention (what presidio-style sets mark): a name written as a name is PERSON, first name
 * alone, full name or surname after a title ("coach miller"). An @handle or a #hashtag is NOT a PERSON
 * span, even when built from a name ("@john_smith", "#johnsmith"): it is an account identifier or a
 * topic, not the way the text names the person; the words around a handle are O too.
 */
import { mulberry32, pick, type Rng } from '../prng.ts';
import type { PiiSpan } from './datasets.ts';
import { socialPools, type SocialPools, type Split } from './social-names-pools.ts';

export interface SocialSentence {
  text: string;
  spans: PiiSpan[];
  /** `social/<split>/<template index>`. */
  template: string;
  /** The names in the text (lowercase), for the EVAL report on names outside the gazetteer. */
  names: string[];
}

/** Slots: {F} first name, {FL} first + last name, {L} surname, {W} a name that is a common word, {H} handle, {T} hashtag, {E} emoji. */
const TRAIN_TEMPLATES = [
  'omg {F} just texted me {E}',
  'cant believe {FL} said that lol',
  'hey {F} r u coming tonight?',
  'thanks {F}!! u saved my day {E}',
  '{F} and {F} are driving up saturday',
  'happy bday {F} {E}{E} love u',
  '{H} lol ask {F}, she knows',
  'my name is {FL} and i approve this message',
  'just met {F} at the gym, super nice guy',
  '{FL} is the goat no debate',
  'shoutout to {F} for the ride home {E}',
  'does anyone know if {F} still works at the bakery',
  'me and {W} watching the game rn',
  '{F} pls call me back asap',
  'lmao {F} fell asleep in class again',
  'rip {FL}, legend {E}',
  'who invited {W} lmaooo',
  'tell {F} i said hi',
  '{H} {F} is gonna be so mad',
  'so proud of my sister {F} {E}',
  'ugh {W} keeps leaving me on read',
  'dm {F} for the link',
  'congrats {FL} on the new job!!',
  'i swear {F} never replies',
  "its {F}'s party not mine",
  'miss u {F} {E}',
  'mrs {L} gave us so much homework',
  'coach {L} benched me again smh',
  'anyone seen {F}? she left her phone here',
  'voting for {FL} tbh',
  '{W} u owe me 20 bucks',
  'dinner w {F} and {W} tonight {E}',
  'name: {FL} | age: 23 | dms open',
  'new video ft. {F} out now {T}',
  '{H} did {F} ever send the pics',
  'gm {F} {E}',
  'lol ok {F}',
  'my boyfriend {F} is the worst cook ever',
  'grandma {F} turns 90 today {T}',
  'is {FL} still on ur team??',
  'ms {L} said the test is next week',
  'mr {L} gave us a pop quiz {E}',
  'shoutout mr {L} best teacher ever',
  'my neighbor {F} keeps parking in my spot',
  'my coworker {FL} is so annoying',
  'me n {F} at the beach {E}',
  "{F} don't forget my charger",
  "i won't tell {F} i promise",
  "{F} didn't even say bye lol",
  "Don't tell {F} about the party",
  'ask {FL} to bring the speaker',
  'remind {FL} to pay me back',
  'thx {FL} for the help today {E}',
  'got lunch with {FL} at that new place',
  '{FL} was hilarious last night',
  'omg {FL} has a podcast now??',
  'me vs {FL} in 1v1 who wins',
  'pretty sure {FL} from school works there',
  'just saw {FL} and {F} at the mall',
  'shoutout {FL} and the whole crew {E}',
  'so {FL} will be at the wedding?',
  'did u hear what {FL} did',
  'dr {L} is the best dentist fr',
  'officer {L} let me off with a warning',
  'prof {L} just posted the grades {E}',
  'uncle {F} brought the grill again lol',
  'went to the mall w {F} and her mom',
  '{F} u up?',
  '{F} got engaged!!! {E}',
  'omw to pick up {F} from practice',
  'why is {F} like this smh',
  'can u send me {FL} number',
  'apparently {F} moved to a new place',
  'pov: {F} is late again',
  'ty {F} {E}',
  'idk what {F} was thinking',
  'bye {F} see u monday',
  'ur boy {F} just got promoted',
  'wait {F} has a twin??',
  'finally met {FL} irl',
  '{F} {L} where have u been all my life',
  'lets gooo {F} {E}',
  'so {F} texted me at 3am',
  'honestly {W} is the funniest person i know',
  'give it up for {F}!!',
  '{F} from accounting keeps microwaving fish',
  'not {F} eating my fries again',
  'love u {W} {E}',
  'ask {W} she has the notes',
  'hi im {F} and this is my first post here',
  'posted by {FL}',
  // no names
  'lol this is so true {E}',
  'cant sleep again {T}',
  'who else is watching the finale tonight',
  '{H} same here lmao',
  'i will be there at 5, save me a seat',
  'pls mark it as done when u finish',
  'paid the phone bill finally {E}',
  'may the force be with u',
  'say a little prayer, hope it works out',
  'rose gold or black one??',
  'grace period ends friday ugh',
  '{T} {T}',
  'follow {H} for more {E}',
  'new post is up! link in bio {T}',
  'best pizza in town honestly {E}',
  'traffic is insane today smh',
  'my cat knocked over my coffee again',
  'the will to live is gone after that exam',
  'jack of all trades master of none',
  'ruby slippers and amber earrings, what a look',
  'holly and ivy on every door this week',
  'the lily pads in the pond are huge',
  'i hope u feel better soon {E}',
  'u will never guess what happened',
  'save the date for my bday party',
  'who is going to the game tonight',
  'my mom made way too much food again',
  'that exam was brutal, i may have failed',
  'pls retweet to help find my lost dog {T}',
  'cant wait for the weekend {E}',
  'the teacher said no phones in class',
  'best friends forever {E}',
  "don't @ me {E}",
  "I DON'T CARE ANYMORE",
  "won't happen again, promise",
  "Don't even start with me today",
  "it isn't that deep, relax",
];

const EVAL_TEMPLATES = [
  'yo {F} where u at',
  '{F} just dropped the best playlist ever {E}',
  'can someone tell {FL} to stop posting',
  'sending love to {F} and her fam {E}',
  'ngl {W} carried the whole team',
  '{H} is {F} coming to the bbq or nah',
  'big up {FL} for organizing',
  'i think {W} is right tbh',
  '{F}!!! answer ur phone',
  'listening to {F} rant about crypto again',
  'im {FL}, nice to meet everyone here',
  'today {F} taught me how to change a tire',
  'mr {L} cancelled class yay',
  'bro {F} is hilarious {E}',
  'happy anniversary {F}, 5 yrs {E}',
  'waiting for {W} like always',
  '{FL} deserves the award fr',
  '{F} and i broke up',
  'we need more people like {F}',
  'my roommate {F} ate my leftovers',
  // no names
  'to be frank i didnt like the ending',
  'pure joy watching this {E}',
  'summer break cant come soon enough',
  'see u all in june {T}',
  'up since dawn, need coffee',
  'chase ur dreams not people',
  'finally a sunny day {E}',
  'have some faith, it gets better',
  '{H} {H} thoughts?',
  'this song hits different at 2am',
  'whoever parked here, please move',
  '{T} is trending again lol',
];

/** The templates of a split (for the disjointness test). */
export function socialTemplates(split: Split): readonly string[] {
  return split === 'train' ? TRAIN_TEMPLATES : EVAL_TEMPLATES;
}

interface Part {
  text: string;
  person: boolean;
}

const SLOT = /(\{[A-Z]+\})/;

// EVAL: one name in five is one the gazetteer does not know
function firstName(p: SocialPools, rng: Rng): string {
  if (p.unlistedFirst.length > 0 && rng() < 0.2) return pick(p.unlistedFirst, rng);
  return rng() < 0.6 && p.enFirst.length > 0 ? pick(p.enFirst, rng) : pick(p.first, rng);
}
function lastName(p: SocialPools, rng: Rng): string {
  if (p.unlistedLast.length > 0 && rng() < 0.2) return pick(p.unlistedLast, rng);
  return rng() < 0.6 && p.enLast.length > 0 ? pick(p.enLast, rng) : pick(p.last, rng);
}

/** A handle: from a name of the split ("@jsmith", "@john_smith", "@sarah92") or a generic one. */
function handle(p: SocialPools, rng: Rng): string {
  const f = firstName(p, rng);
  const l = lastName(p, rng);
  const r = rng();
  if (r < 0.3) return pick(p.handles, rng);
  if (r < 0.45) return `@${f}`;
  if (r < 0.6) return `@${f}_${l}`;
  if (r < 0.75) return `@${f.charAt(0)}${l}`;
  if (r < 0.9) return `@${f}${l}${Math.floor(rng() * 100)}`;
  return `@${f}${Math.floor(rng() * 1000)}`;
}

function hashtag(p: SocialPools, rng: Rng): string {
  if (rng() < 0.25) return `#${firstName(p, rng)}${lastName(p, rng)}`;
  return pick(p.hashtags, rng);
}

function elongate(w: string, rng: Rng): string {
  return w + w.charAt(w.length - 1).repeat(2 + Math.floor(rng() * 3));
}

/** Typos and elongations in ordinary words: a swapped or dropped letter, "sooo", "pleeease". */
function noisyLiteral(s: string, rng: Rng): string {
  return s.replace(/[a-z]{4,}/g, (w) => {
    const r = rng();
    if (r < 0.04) {
      const i = 1 + Math.floor(rng() * (w.length - 2));
      return w.slice(0, i) + w.charAt(i + 1) + w.charAt(i) + w.slice(i + 2);
    }
    if (r < 0.07) {
      const i = 1 + Math.floor(rng() * (w.length - 1));
      return w.slice(0, i) + w.slice(i + 1);
    }
    if (r < 0.1) return elongate(w, rng);
    return w;
  });
}

function fill(template: string, p: SocialPools, rng: Rng, names: string[]): Part[] {
  const parts: Part[] = [];
  for (const piece of template.split(SLOT).filter((x) => x !== '')) {
    const lit = (text: string): void => void parts.push({ text, person: false });
    const name = (text: string): void => {
      names.push(...text.split(' '));
      // an elongated name now and then ("sarahhh"): still the person
      parts.push({ text: rng() < 0.05 ? elongate(text, rng) : text, person: true });
    };
    if (piece === '{F}') name(firstName(p, rng));
    else if (piece === '{L}') name(lastName(p, rng));
    else if (piece === '{W}') name(rng() < 0.5 ? pick(p.twinNames, rng) : firstName(p, rng));
    else if (piece === '{FL}')
      name(rng() < 0.15 ? `${pick(p.twinNames, rng)} ${lastName(p, rng)}` : `${firstName(p, rng)} ${lastName(p, rng)}`);
    else if (piece === '{H}') lit(handle(p, rng));
    else if (piece === '{T}') lit(hashtag(p, rng));
    else if (piece === '{E}') lit(pick(p.emoji, rng));
    else lit(noisyLiteral(piece, rng));
  }
  return parts;
}

const title = (s: string): string => s.replace(/(^|\s)(\p{L})/gu, (_, a: string, b: string) => a + b.toUpperCase());

function generate(split: Split, count: number, seed: number): SocialSentence[] {
  const p = socialPools(split);
  const templates = socialTemplates(split);
  const rng = mulberry32(seed);
  const out: SocialSentence[] = [];
  for (let k = 0; k < count; k++) {
    const ti = Math.floor(rng() * templates.length);
    const names: string[] = [];
    const parts = fill(templates[ti] as string, p, rng, names);
    // casing: mostly lowercase; some shouting; a few with capitalised names (people do write them)
    const v = rng();
    const cased = parts.map((x) =>
      v < 0.08 ? { ...x, text: x.text.toUpperCase() } : v < 0.14 && x.person ? { ...x, text: title(x.text) } : x,
    );
    // the carrier: the wrapper a platform or a reply puts around the message
    const carrier = pick(p.carriers, rng);
    const [before, after] = carrier.split('{x}') as [string, string];
    const h = (s: string): string => s.replace('{H}', () => handle(p, rng));
    let text = h(before);
    const spans: PiiSpan[] = [];
    for (const part of cased) {
      if (part.person) spans.push({ start: text.length, end: text.length + part.text.length, label: 'PERSON' });
      text += part.text;
    }
    text += h(after);
    if (rng() < 0.25) text = text.replace(/[.!?]+$/, '');
    else if (rng() < 0.1) text += pick(['!!!', '??', ' lol', ' 😂😂'], rng);
    out.push({ text, spans, template: `social/${split}/${ti}`, names });
  }
  return out;
}

/** TRAIN rows (TRAIN templates and slot values only). */
export function socialNamesTrain(count = 4000, seed = 41): SocialSentence[] {
  return generate('train', count, seed);
}

/** EVAL rows (EVAL templates and slot values only). */
export function socialNamesEval(count = 800, seed = 42): SocialSentence[] {
  return generate('eval', count, seed);
}
