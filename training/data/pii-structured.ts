/**
 * Generated sentences carrying structured identifiers — e-mails, phones, SSNs, cards, IBANs, bank
 * account and routing numbers, IPs, MACs, VINs — next to names and street addresses, with gold
 * spans in the eval label set (`training/eval-metrics.ts`). Values come from @faker-js/faker (several
 * locales) plus our own generators where faker's values are not valid (US SSN area rules, VIN check
 * digit). Every fourth template is EVAL only; used to evaluate the pii detector end to end, and to
 * teach the NER model that identifiers are not names.
 */
import { fakerDE, fakerEN_GB, fakerEN_US, fakerES, fakerFR, fakerIT, fakerNL, type Faker } from '@faker-js/faker';
import { mulberry32, pick, type Rng } from '../prng.ts';
import type { PiiSpan } from './datasets.ts';
import { vinCheckDigit } from '../../engine/detectors/pii-patterns.ts';

export interface StructuredSentence {
  text: string;
  spans: PiiSpan[];
  template: string;
}

const LOCALES: Faker[] = [fakerEN_US, fakerEN_US, fakerEN_US, fakerEN_GB, fakerDE, fakerFR, fakerES, fakerIT, fakerNL];

type Slot =
  | 'NAME'
  | 'FIRST'
  | 'EMAIL'
  | 'PHONE'
  | 'SSN'
  | 'CARD'
  | 'IBAN'
  | 'ACCOUNT'
  | 'ROUTING'
  | 'IPV4'
  | 'IPV6'
  | 'MAC'
  | 'VIN'
  | 'ADDRESS';
const LABEL: Record<Slot, string> = {
  NAME: 'PERSON',
  FIRST: 'PERSON',
  EMAIL: 'EMAIL',
  PHONE: 'PHONE',
  SSN: 'SSN',
  CARD: 'CREDIT_CARD',
  IBAN: 'IBAN',
  ACCOUNT: 'BANK_ACCOUNT',
  ROUTING: 'BANK_ACCOUNT',
  IPV4: 'IP_ADDRESS',
  IPV6: 'IP_ADDRESS',
  MAC: 'MAC_ADDRESS',
  VIN: 'VIN',
  ADDRESS: 'ADDRESS',
};

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** A VIN with a valid ISO 3779 / North American check digit (position 9). */
export function makeVin(rng: Rng): string {
  const c = Array.from({ length: 17 }, () => VIN_CHARS[Math.floor(rng() * VIN_CHARS.length)] as string);
  // The serving detector's own check digit: what it accepts is what training generates.
  c[8] = vinCheckDigit(c.join('')) as string;
  return c.join('');
}

/** A US SSN that passes the area/group/serial rules (no 000, 666, 9xx areas; no 00 group; no 0000 serial). */
export function makeSsn(rng: Rng, sep: string): string {
  let area = 1 + Math.floor(rng() * 898);
  if (area === 666) area = 667;
  const group = 1 + Math.floor(rng() * 99);
  const serial = 1 + Math.floor(rng() * 9999);
  return [String(area).padStart(3, '0'), String(group).padStart(2, '0'), String(serial).padStart(4, '0')].join(sep);
}

function value(slot: Slot, f: Faker, rng: Rng): string {
  switch (slot) {
    case 'NAME':
      return `${f.person.firstName()} ${f.person.lastName()}`;
    case 'FIRST':
      return f.person.firstName();
    case 'EMAIL':
      return f.internet.email().toLowerCase();
    case 'PHONE': {
      const r = rng();
      if (r < 0.35) return fakerEN_US.phone.number({ style: 'national' });
      if (r < 0.6) return fakerEN_US.phone.number({ style: 'international' });
      if (r < 0.75)
        return `${pick(['555', '212', '415', '303', '617'], rng)}-${200 + Math.floor(rng() * 700)}-${String(Math.floor(rng() * 10000)).padStart(4, '0')}`;
      if (r < 0.9)
        return `+44 20 ${7000 + Math.floor(rng() * 2000)} ${String(Math.floor(rng() * 10000)).padStart(4, '0')}`;
      return `+49 30 ${String(10000000 + Math.floor(rng() * 89999999))}`;
    }
    case 'SSN':
      return makeSsn(rng, rng() < 0.8 ? '-' : ' ');
    case 'CARD': {
      const n = f.finance.creditCardNumber(pick(['visa', 'mastercard', 'amex', 'discover'], rng)).replace(/\D/g, '');
      const r = rng();
      if (r < 0.4) return n;
      const groups = n.length === 15 ? [n.slice(0, 4), n.slice(4, 10), n.slice(10)] : (n.match(/.{1,4}/g) as string[]);
      return groups.join(r < 0.7 ? ' ' : '-');
    }
    case 'IBAN':
      return f.finance.iban({
        formatted: rng() < 0.5,
        countryCode: pick(['DE', 'FR', 'GB', 'NL', 'ES', 'IT', 'BE', 'CH'], rng),
      });
    case 'ACCOUNT':
      return f.finance.accountNumber(pick([8, 10, 12], rng));
    case 'ROUTING':
      return f.finance.routingNumber();
    case 'IPV4':
      return f.internet.ipv4();
    case 'IPV6':
      return f.internet.ipv6();
    case 'MAC':
      return f.internet.mac(pick([':', ':', '-'], rng));
    case 'VIN':
      return makeVin(rng);
    case 'ADDRESS':
      return `${fakerEN_US.location.streetAddress(rng() < 0.3)}, ${fakerEN_US.location.city()}, ${fakerEN_US.location.state({ abbreviated: true })} ${fakerEN_US.location.zipCode('#####')}`;
  }
}

const TEMPLATES: string[] = [
  'Hi, I am {NAME}. You can reach me at {EMAIL} or call {PHONE}.',
  'My SSN is {SSN} and my date of birth is in the file.',
  'Please charge my card {CARD} for the renewal.',
  'Wire the refund to IBAN {IBAN}, account holder {NAME}.',
  'Customer {NAME} ({EMAIL}) reported that the login from {IPV4} failed.',
  'Account number {ACCOUNT}, routing number {ROUTING}. Please set up the direct deposit.',
  'The device with MAC address {MAC} keeps dropping off the network.',
  'VIN {VIN} — the car needs a recall check before the sale.',
  'Ship to {NAME}, {ADDRESS}. Contact phone: {PHONE}.',
  'Blocked connection attempts from {IPV6} at 03:12 UTC.',
  'social security number: {SSN}',
  'Send the invoice to {EMAIL} and copy {EMAIL}.',
  'Name: {NAME}\nEmail: {EMAIL}\nPhone: {PHONE}\nAddress: {ADDRESS}',
  'Card on file: {CARD}. Billing address: {ADDRESS}.',
  'Can you check whether the IBAN {IBAN} is valid?',
  'The vehicle identification number is {VIN} and the owner is {NAME}.',
  '{FIRST} said her new number is {PHONE}.',
  'Router {IPV4} reports the client {MAC} as offline.',
  'Please update my bank account to {ACCOUNT} (routing {ROUTING}).',
  'Employee record: {NAME}, SSN {SSN}, {ADDRESS}',
  'I paid with {CARD} but the order still shows pending. My email is {EMAIL}.',
  'Our office is at {ADDRESS}; call {PHONE} when you arrive.',
  'Traffic spike from {IPV4} and {IPV4} — possibly the same scanner.',
  'Transfer 250 EUR to {NAME}, IBAN {IBAN}, reference "rent".',
  'For the warranty claim: VIN {VIN}, purchased by {NAME}.',
  'The DHCP lease for {MAC} was renewed with address {IPV4}.',
  'Hey {FIRST}, my personal email is {EMAIL}, not the work one.',
  'Please verify: SSN {SSN}, phone {PHONE}.',
  'Refund card ending — full number {CARD} — was declined.',
  'Deposit into account {ACCOUNT} at the branch on {ADDRESS}.',
  'Contact {NAME} at {PHONE} about the lease at {ADDRESS}.',
  'New device registered: {MAC} ({IPV6}).',
];

function fill(template: string, rng: Rng): { text: string; spans: PiiSpan[] } {
  const f = pick(LOCALES, rng);
  const spans: PiiSpan[] = [];
  let text = '';
  for (const part of template.split(/(\{[A-Z0-9]+\})/)) {
    const m = /^\{([A-Z0-9]+)\}$/.exec(part);
    if (!m) {
      text += part;
      continue;
    }
    const slot = m[1] as Slot;
    const v = value(slot, f, rng);
    spans.push({ start: text.length, end: text.length + v.length, label: LABEL[slot] });
    text += v;
  }
  return { text, spans };
}

function expand(heldOut: boolean, count: number, seed: number): StructuredSentence[] {
  const selected = TEMPLATES.map((t, i) => ({ t, i })).filter(({ i }) => (i % 4 === 3) === heldOut);
  const rng = mulberry32(seed);
  for (const f of LOCALES) f.seed(seed);
  fakerEN_US.seed(seed);
  const out: StructuredSentence[] = [];
  for (let k = 0; k < count; k++) {
    const { t, i } = selected[k % selected.length] as { t: string; i: number };
    out.push({ ...fill(t, rng), template: `structured/${i}` });
  }
  return out;
}

export function piiStructuredTrain(count = 2000, seed = 21): StructuredSentence[] {
  return expand(false, count, seed);
}

export function piiStructuredEval(count = 800, seed = 22): StructuredSentence[] {
  return expand(true, count, seed);
}
