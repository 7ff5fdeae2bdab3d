/**
 * Generated NER training/evaluation sentences: realistic messages, forms and e-mails with person
 * names, street addresses, cities/countries and companies from @faker-js/faker (many locales, so
 * names are not only Anglo-Saxon), with casing variants (all lowercase, all caps, lowercase names)
 * so that lowercase and unusual names are covered. Labels: PERSON, LOCATION, ORGANIZATION, ADDRESS
 * (a street address, including the city/state/postcode written with it, is one ADDRESS).
 *
 * Every fourth template is an EVAL template (not used for training).
 */
import {
  fakerCS_CZ,
  fakerDA,
  fakerDE,
  fakerEN_GB,
  fakerEN_IN,
  fakerEN_NG,
  fakerEN_US,
  fakerES,
  fakerFI,
  fakerFR,
  fakerHU,
  fakerIT,
  fakerJA,
  fakerNL,
  fakerPL,
  fakerPT_BR,
  fakerRO,
  fakerRU,
  fakerSV,
  fakerTR,
  fakerVI,
  fakerYO_NG,
  fakerZH_CN,
  fakerAR,
  fakerKO,
  fakerEL,
  type Faker,
} from '@faker-js/faker';
import { mulberry32, pick, type Rng } from '../prng.ts';
import type { PiiSpan } from './datasets.ts';

export interface SynthSentence {
  text: string;
  spans: PiiSpan[];
  template: string;
}

const LATIN: Faker[] = [
  fakerEN_US,
  fakerEN_US,
  fakerEN_GB,
  fakerDE,
  fakerFR,
  fakerES,
  fakerIT,
  fakerNL,
  fakerPL,
  fakerPT_BR,
  fakerTR,
  fakerVI,
  fakerEN_IN,
  fakerEN_NG,
  fakerYO_NG,
  fakerSV,
  fakerFI,
  fakerCS_CZ,
  fakerHU,
  fakerRO,
  fakerDA,
];
const OTHER: Faker[] = [fakerJA, fakerZH_CN, fakerRU, fakerAR, fakerKO, fakerEL];
const ADDRESS_LOCALES: Faker[] = [
  fakerEN_US,
  fakerEN_US,
  fakerEN_GB,
  fakerDE,
  fakerFR,
  fakerES,
  fakerIT,
  fakerNL,
  fakerEN_IN,
  fakerPT_BR,
];

type Kind = 'PERSON' | 'FIRST' | 'LAST' | 'ADDRESS' | 'STREET' | 'CITY' | 'COUNTRY' | 'ORG';
type Part = string | Kind;

interface Ctx {
  rng: Rng;
  person: Faker;
  place: Faker;
}

function value(kind: Kind, c: Ctx): { text: string; label: string } {
  const f = c.person;
  const a = c.place;
  switch (kind) {
    case 'PERSON': {
      const r = c.rng();
      if (r < 0.15)
        return { text: `${f.person.firstName()} ${f.person.lastName()}-${f.person.lastName()}`, label: 'PERSON' };
      if (r < 0.25)
        return {
          text: `${f.person.firstName()} ${f.person.middleName?.() ?? f.person.firstName()} ${f.person.lastName()}`,
          label: 'PERSON',
        };
      return { text: `${f.person.firstName()} ${f.person.lastName()}`, label: 'PERSON' };
    }
    case 'FIRST':
      return { text: f.person.firstName(), label: 'PERSON' };
    case 'LAST':
      return { text: f.person.lastName(), label: 'PERSON' };
    case 'STREET':
      return { text: a.location.streetAddress(c.rng() < 0.3), label: 'ADDRESS' };
    case 'ADDRESS': {
      const r = c.rng();
      const street = a.location.streetAddress(c.rng() < 0.3);
      if (r < 0.35) return { text: `${street}, ${a.location.city()}`, label: 'ADDRESS' };
      if (r < 0.7)
        return {
          text: `${street}, ${a.location.city()}, ${a.location.state({ abbreviated: true })} ${a.location.zipCode()}`,
          label: 'ADDRESS',
        };
      if (r < 0.85) return { text: `${street}\n${a.location.zipCode()} ${a.location.city()}`, label: 'ADDRESS' };
      return {
        text: `${street}, ${a.location.zipCode()} ${a.location.city()}, ${a.location.country()}`,
        label: 'ADDRESS',
      };
    }
    case 'CITY':
      return { text: a.location.city(), label: 'LOCATION' };
    case 'COUNTRY':
      return { text: a.location.country(), label: 'LOCATION' };
    case 'ORG':
      return {
        text:
          c.rng() < 0.5
            ? a.company.name()
            : `${a.company.name()} ${pick(['Inc.', 'Ltd', 'GmbH', 'LLC', 'Group', 'Bank', 'Hospital', 'University'], c.rng)}`,
        label: 'ORGANIZATION',
      };
  }
}

const T = (s: string): Part[] =>
  s
    .split(/(\{[A-Z]+\})/)
    .filter((x) => x !== '')
    .map((x) => (/^\{[A-Z]+\}$/.test(x) ? (x.slice(1, -1) as Kind) : x));

const TEMPLATES: Part[][] = [
  'My name is {PERSON} and I live at {ADDRESS}.',
  'Hi, this is {FIRST} from {ORG}. Could you call me back tomorrow?',
  'Please ship the order to {PERSON}, {ADDRESS}.',
  '{PERSON} has been working at {ORG} in {CITY} since 2019.',
  'Dear {FIRST},\n\nthank you for your application to {ORG}. We will contact you shortly.\n\nBest regards,\n{PERSON}',
  'Name: {PERSON}\nAddress: {ADDRESS}\nEmployer: {ORG}',
  'I met {PERSON} at the conference in {CITY} last week.',
  'Can you write a reference letter for {PERSON}? She worked with me at {ORG}.',
  'The tenant, {PERSON}, reported a leak at {STREET}.',
  'We are flying from {CITY} to {COUNTRY} with {FIRST} on Friday.',
  'Contact person: {PERSON} ({ORG}), {ADDRESS}',
  'Patient {PERSON}, born in {CITY}, was admitted on Monday.',
  '{FIRST} said the meeting with {ORG} moved to their office at {ADDRESS}.',
  'Summarize this email from {PERSON} about the contract with {ORG}.',
  'my neighbour {PERSON} lives at {STREET} and has a spare key',
  'Send the invoice to {ORG}, attention {PERSON}, {ADDRESS}.',
  'Mr. {LAST} and Ms. {LAST} will join the call from {CITY}.',
  'Is {PERSON} the new CEO of {ORG}?',
  'Hello, I am {PERSON}, a student at {ORG} in {COUNTRY}.',
  'Deliver to: {PERSON}\n{ADDRESS}',
  'Our team lead {FIRST} moved to {CITY} after leaving {ORG}.',
  'Please update my address to {ADDRESS}. Thanks, {FIRST}',
  'Dr. {PERSON} from {ORG} will present the results.',
  '{PERSON} ({CITY}, {COUNTRY}) won the regional chess tournament.',
  "I'm {FIRST}. My brother {FIRST} works for {ORG}.",
  'The package for {PERSON} was left at {STREET} instead of {STREET}.',
  'Book a table for {FIRST} at a restaurant near {ADDRESS}.',
  'Translate this note from {PERSON}: "See you in {CITY} next month."',
  'According to {PERSON}, {ORG} plans to open an office in {CITY}.',
  'lol {FIRST} just texted me, she is at {STREET} already',
  'Emergency contact: {PERSON}, phone on file, address {ADDRESS}.',
  'Write a birthday message for my colleague {PERSON}.',
  // no entities (capitalised common words, products, dates, roles) — against over-prediction
  'The Project Manager approved the Budget on Monday.',
  'Please reset my password and send the link to my work email.',
  'The Quarterly Report is due next Friday at Noon.',
  'Can you explain how Machine Learning models are trained?',
  'Turn on Dark Mode in the Settings menu.',
  'The Customer Support team will reply within 24 hours.',
  'I ordered a Large Pizza with Extra Cheese.',
  'What is the difference between Python and JavaScript?',
].map(T);

function variant(text: string, spans: PiiSpan[], rng: Rng): string {
  const v = rng();
  if (v < 0.15) return text.toLowerCase();
  if (v < 0.2) return text.toUpperCase();
  if (v < 0.3) {
    // lowercase names only (same length, so offsets stay valid)
    let out = text;
    for (const s of spans)
      if (s.label === 'PERSON')
        out = out.slice(0, s.start) + out.slice(s.start, s.end).toLowerCase() + out.slice(s.end);
    return out;
  }
  return text;
}

function build(parts: Part[], c: Ctx): { text: string; spans: PiiSpan[] } {
  let text = '';
  const spans: PiiSpan[] = [];
  for (const part of parts) {
    if (['PERSON', 'FIRST', 'LAST', 'ADDRESS', 'STREET', 'CITY', 'COUNTRY', 'ORG'].includes(part)) {
      const v = value(part as Kind, c);
      spans.push({ start: text.length, end: text.length + v.text.length, label: v.label });
      text += v.text;
    } else text += part;
  }
  return { text, spans };
}

function generate(heldOut: boolean, count: number, seed: number): SynthSentence[] {
  const all = [...LATIN, ...OTHER];
  all.forEach((f, i) => f.seed(seed * 31 + i));
  const rng = mulberry32(seed);
  const selected = TEMPLATES.map((t, i) => ({ t, i })).filter(({ i }) => (i % 4 === 3) === heldOut);
  const out: SynthSentence[] = [];
  for (let k = 0; k < count; k++) {
    const { t, i } = pick(selected, rng);
    const person = rng() < 0.85 ? pick(LATIN, rng) : pick(OTHER, rng);
    const place = pick(ADDRESS_LOCALES, rng);
    const b = build(t, { rng, person, place });
    out.push({ text: variant(b.text, b.spans, rng), spans: b.spans, template: `faker/${i}` });
  }
  return out;
}

export function piiSynthTrain(count = 3000, seed = 11): SynthSentence[] {
  return generate(false, count, seed);
}

export function piiSynthEval(count = 600, seed = 12): SynthSentence[] {
  return generate(true, count, seed);
}
