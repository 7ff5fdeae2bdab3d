/**
 * Candidate patterns and validators for the regex PII recognizers. Every pattern is compiled once
 * here; none nests an unbounded quantifier (inputs reach 1 MB), and each starts behind a lookbehind
 * so that it never begins inside a longer word or digit run. Validators (Luhn, mod-97, VIN check
 * digit, ABA checksum, SSN area rules) decide what a candidate is; the patterns only find shapes.
 */
import { isIP } from 'node:net';

/** E-mail: bounded local part and up to 8 dot-separated host labels. */
export const EMAIL_RE =
  /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![\w-])/g;

/**
 * A phone extension: `x123`, `x 12`, `ext. 45`, `Ext: 7`, `extn 9`, `extension 1234`, optionally after a
 * comma (one pattern for PHONE_RE and PHONE_EXTENSION_RE).
 */
const PHONE_EXTENSION = String.raw`,?[ ]?(?:[xX][ ]?|(?:ext|Ext|EXT)(?:n|ension)?[.:]?[ ]?)\d{1,6}`;

/**
 * Phone candidates: compact E.164, or digit groups with mandatory separators (so a split is unique
 * and backtracking stays linear), optionally behind a country code (or NANP's trunk `1` before a
 * parenthesised area code), a parenthesised area code, or an area code and one slash (`030/1234567`),
 * and optionally followed by an extension (`x123`, `ext. 45`).
 * Whether a candidate is a phone (libphonenumber-js validation, shape rules, context) is decided in
 * pii-phones.ts.
 */
export const PHONE_RE = new RegExp(
  String.raw`(?<![\w+@./-])(?:\+[1-9]\d{6,14}|(?:\+[1-9]\d{0,3}[ .-]?|1[ .-]?(?=\())?(?:\([ ]?\d{1,5}[ ]?\)[ .-]?\d{1,8}(?:[ .-]\d{1,6}){0,5}|\d{2,5}\/\d{3,8}(?:[ .-]\d{1,6}){0,3}|\d{1,6}(?:[ .-]\d{1,8}){1,6}))` +
    `(?:${PHONE_EXTENSION})?` +
    String.raw`(?![\w/@]|[.-]\d)`,
  'g',
);

/** A phone's trailing extension, as PHONE_RE admits it. */
export const PHONE_EXTENSION_RE = new RegExp(`${PHONE_EXTENSION}$`);

/** An unseparated 7–15 digit run: a phone only after a context word, and only if valid in a region. */
export const PHONE_DIGITS_RE = /(?<![\w+@./-])\d{7,15}(?![\w/@]|[.,-]\d)/g;

/** 12–19 digits (Maestro starts at 12), each optionally followed by one space or dash. */
export const CARD_RE = /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-]|[ ]\d)/g;

/** Country, check digits, then 4-character groups (optionally space-separated) and a short tail. */
export const IBAN_RE =
  /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?(?![A-Za-z0-9])/g;

/** AAA-GG-SSSS with the same separator (dash or space) twice. */
export const SSN_RE = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-]|[ ]\d)/g;

/** Nine bare digits: an SSN or an ABA routing number, reported only with context. */
export const NINE_DIGITS_RE = /(?<![\w-])\d{9}(?![\w-])/g;

/** Bare account-number digit runs, looked for only just after an account context word. */
export const ACCOUNT_DIGITS_RE = /(?<![\w-])\d{6,17}(?![\w-])/g;

/** VIN alphabet: digits and capitals without I, O, Q. */
export const VIN_RE = /(?<![A-Za-z0-9])[A-HJ-NPR-Z0-9]{17}(?![A-Za-z0-9])/g;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** IPv4 whose octets are 0–255 by construction; not part of a longer dotted run. */
export const IPV4_RE = new RegExp(`(?<![\\w.:-])(?:${OCTET}\\.){3}${OCTET}(?![\\w-]|\\.\\d)`, 'g');

/** IPv6 candidates (full, compressed, or with an embedded IPv4); `isIP` decides. */
export const IPV6_RE =
  /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g;

/** MAC with ':' or '-' (the same one throughout), and Cisco's dotted form. */
export const MAC_RE = /(?<![\w:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![\w:-])/g;
export const MAC_CISCO_RE = /(?<![\w.])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w]|\.[0-9A-Fa-f])/g;

const STREET_SUFFIX =
  'Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq|Trail|Trl|Plaza|Alley|Crescent|Close|Loop';
const US_STATES =
  'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI';
/**
 * US-style street address: house number, 1–4 capitalised (or ordinal) words, a street suffix, an
 * optional directional, unit, and "City, ST 12345". Groups: 1 number, 2 street words, 3 unit,
 * 4 city/state, 5 ZIP.
 */
export const STREET_RE = new RegExp(
  `(?<![\\w-])(\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?)[ ]{1,3}` +
    `((?:(?:[A-Z][A-Za-z'-]{0,20}\\.?|\\d{1,3}(?:st|nd|rd|th))[ ]{1,3}){1,4})(?:${STREET_SUFFIX})\\b\\.?` +
    `(?:[ ]{1,2}(?:N|S|E|W|NE|NW|SE|SW)\\b\\.?)?` +
    `(,?[ ]{1,3}(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|#)\\.?[ ]{0,2}#?[A-Za-z0-9-]{1,6}\\b)?` +
    `((?:,?[ ]{1,3}|,?[ ]?\\r?\\n)(?:[A-Z][A-Za-z]{1,20}[ ]){0,2}[A-Z][A-Za-z]{1,20},?[ ]{1,3}(?:${US_STATES})\\b(?:[ ]{1,3}(\\d{5}(?:-\\d{4})?)\\b)?)?`,
  'g',
);

const PHONE_WORDS = 'phone|tel|telephone|mobile|cell|call|fax|whatsapp|sms|text me|contact|ph';
/** Context words that gate or strengthen a candidate; tested on the ~30 characters before it. */
export const PHONE_CONTEXT_RE = new RegExp(String.raw`\b(?:${PHONE_WORDS})\b[^\n]{0,24}$`, 'i');
/** Whether a text holds any phone context word (gates the bare-digit phone search). */
export const PHONE_WORD_RE = new RegExp(String.raw`\b(?:${PHONE_WORDS})\b`, 'i');
export const SSN_CONTEXT_RE = /\b(?:ssn|ss#|social security(?: number| no\.?)?)[^\n]{0,24}$/i;
export const VERSION_CONTEXT_RE = /(?:\bv|\bver(?:sion)?\.?|\brelease|\bbuild|\brev(?:ision)?|\bOID)\s*[:#]?\s*$/i;
export const ROUTING_CONTEXT_RE = /\b(?:routing|aba|rtn|transit)\b[^\n]{0,30}$/i;
/** Account context words, matched over the whole text; candidates must follow within 30 chars. */
export const ACCOUNT_CONTEXT_RE = /\b(?:accounts?|acct|acc|a\/c)\b/gi;

/** Luhn (mod 10) over a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The card network whose IIN range and length fit `digits`, or null. */
export function cardNetwork(digits: string): string | null {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  if (digits[0] === '4' && (n === 13 || n === 16 || n === 19)) return 'visa';
  if (((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) && n === 16) return 'mastercard';
  if ((p2 === 34 || p2 === 37) && n === 15) return 'amex';
  if ((p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) && n >= 16) return 'discover';
  if ((p2 === 35 && n >= 16) || ((p4 === 2131 || p4 === 1800) && n === 15)) return 'jcb';
  if (p2 === 62 && n >= 16) return 'unionpay';
  if (
    (p4 === 5018 ||
      p4 === 5020 ||
      p4 === 5038 ||
      p4 === 6304 ||
      p4 === 6759 ||
      (p4 >= 6761 && p4 <= 6763) ||
      (p2 >= 56 && p2 <= 58) ||
      p3 === 639) &&
    n >= 12
  )
    return 'maestro';
  if (((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38) && n >= 14) return 'diners';
  return null;
}

/** IBAN length per country (SWIFT IBAN registry). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** ISO 13616 mod-97 check over a compact, upper-case IBAN. */
export function ibanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const c = rearranged.charCodeAt(i);
    // Letters count as two digits (A=10 … Z=35); feed them in one step.
    if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97;
    else if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97;
    else return false;
  }
  return rem === 1;
}

/** SSA rules: no area 000, 666 or 9xx, no group 00, no serial 0000, and not a famous sample. */
export function ssnValid(area: string, group: string, serial: string): boolean {
  if (area === '000' || area === '666' || area[0] === '9') return false;
  if (group === '00' || serial === '0000') return false;
  const whole = `${area}${group}${serial}`;
  return whole !== '078051120' && whole !== '219099999';
}

const VIN_VALUES: Readonly<Record<string, number>> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/**
 * ISO 3779 / 49 CFR 565 check digit of a 17-character VIN ('0'–'9' or 'X'; position 9 itself has
 * weight 0), or null when a character is not one a VIN may hold. Also used to generate training VINs.
 */
export function vinCheckDigit(vin: string): string | null {
  if (vin.length !== 17) return null;
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const ch = vin[i]!;
    const v = ch >= '0' && ch <= '9' ? ch.charCodeAt(0) - 48 : VIN_VALUES[ch];
    if (v === undefined) return null;
    sum += v * VIN_WEIGHTS[i]!;
  }
  const rem = sum % 11;
  return rem === 10 ? 'X' : String(rem);
}

/** Whether position 9 of a VIN holds its check digit. */
export function vinCheckDigitValid(vin: string): boolean {
  const digit = vinCheckDigit(vin);
  return digit !== null && vin[8] === digit;
}

/** ABA routing-number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function abaValid(digits: string): boolean {
  if (digits.length !== 9) return false;
  const d = (i: number) => digits.charCodeAt(i) - 48;
  const sum = 3 * (d(0) + d(3) + d(6)) + 7 * (d(1) + d(4) + d(7)) + (d(2) + d(5) + d(8));
  return sum % 10 === 0 && digits !== '000000000';
}

/** IPv6 by node's parser, minus tokens that are only technically addresses (`a::b`, `::`). */
export function ipv6Plausible(candidate: string): boolean {
  if (isIP(candidate) !== 6) return false;
  if (candidate === '::1' || candidate.includes('.')) return true;
  let hex = 0;
  let groups = 0;
  for (const g of candidate.split(':')) {
    if (g.length > 0) {
      groups++;
      hex += g.length;
    }
  }
  return groups >= 2 && hex >= 4;
}
