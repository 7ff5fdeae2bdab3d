/**
 * Regex PII recognizers (presidio-style: a pattern finds a shape, a validator and nearby context
 * decide the confidence). Runs synchronously on the normalised text and reports spans in original
 * offsets; where two recognizers claim overlapping text, the more confident (then longer) one wins.
 */
import { runNow, STEP_CHARS, type Steps } from '../../lib/steps.ts';
import type { DetectorInput, FindingItem } from '../detector.ts';
import {
  abaValid,
  ACCOUNT_CONTEXT_RE,
  ACCOUNT_DIGITS_RE,
  CARD_RE,
  cardNetwork,
  EMAIL_RE,
  IBAN_LENGTHS,
  IBAN_RE,
  ibanChecksumValid,
  IPV4_RE,
  IPV6_RE,
  ipv6Plausible,
  luhnValid,
  MAC_CISCO_RE,
  MAC_RE,
  NINE_DIGITS_RE,
  PHONE_CONTEXT_RE,
  PHONE_DIGITS_RE,
  PHONE_EXTENSION_RE,
  PHONE_RE,
  PHONE_WORD_RE,
  ROUTING_CONTEXT_RE,
  SSN_CONTEXT_RE,
  SSN_RE,
  ssnValid,
  STREET_RE,
  VERSION_CONTEXT_RE,
  VIN_RE,
  vinCheckDigitValid,
} from './pii-patterns.ts';
import { judgeBarePhoneDigits, judgePhoneCandidate, newPhoneBudget, type PhoneBudget } from './pii-phones.ts';

/** Every label this module can emit. */
export const PII_REGEX_LABELS: readonly string[] = [
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'CREDIT_CARD',
  'IBAN_CODE',
  'US_SSN',
  'VIN',
  'IP_ADDRESS',
  'MAC_ADDRESS',
  'BANK_ACCOUNT',
  'STREET_ADDRESS',
];

/** A hit in normalised-text offsets. */
interface Hit {
  start: number;
  end: number;
  label: string;
  confidence: number;
}

/** How far before a candidate a context word may sit. */
const CONTEXT_CHARS = 30;

const before = (text: string, start: number, n = CONTEXT_CHARS): string => text.slice(Math.max(0, start - n), start);
const digitsOf = (s: string): string => s.replace(/\D/g, '');

/** A candidate → a confidence, or null to drop it; may narrow the span via `end`. */
type Judge = (
  m: RegExpExecArray,
  text: string,
  phones: PhoneBudget,
) => { confidence: number; end?: number; label?: string } | null;

interface Recognizer {
  label: string;
  re: RegExp;
  /** Cheap whole-text precondition, so prose without digits or '@' skips the regex entirely. */
  needs: 'digit' | 'at' | 'colon' | 'phoneWord' | 'none';
  judge: Judge;
}

/** Candidate shapes and context here; libphonenumber's verdict in pii-phones.ts. */
const judgePhone: Judge = (m, text, phones) => {
  // the extension is part of the span, not of the number's shape
  const extension = PHONE_EXTENSION_RE.exec(m[0]);
  const raw = extension ? m[0].slice(0, extension.index) : m[0];
  const context = PHONE_CONTEXT_RE.test(before(text, m.index));
  const confidence = judgePhoneCandidate({ raw, extension: extension !== null, context }, phones);
  return confidence === null ? null : { confidence };
};

const judgeBarePhone: Judge = (m, text, phones) => {
  if (!PHONE_CONTEXT_RE.test(before(text, m.index))) return null;
  const confidence = judgeBarePhoneDigits(m[0], phones);
  return confidence === null ? null : { confidence };
};

// `logo@2x.png`, `pkg@1.2.3.tgz`: asset names and package specs, not mailboxes.
const FILE_TLDS = /\.(?:png|jpe?g|gif|svg|webp|ico|js|mjs|ts|tsx|css|json|html?|tgz|zip|md|txt|py|rb|go)$/i;
const judgeEmail: Judge = (m) => (FILE_TLDS.test(m[0]) ? null : { confidence: 0.9 });

const judgeCard: Judge = (m) => {
  const digits = digitsOf(m[0]);
  if (digits.length < 12 || digits.length > 19) return null;
  const network = cardNetwork(digits);
  if (!network || !luhnValid(digits)) return null;
  // A 12-digit Maestro passes Luhn by chance once in ten: weaker evidence than a full-length card.
  return { confidence: digits.length < 13 ? 0.8 : 0.95 };
};

const judgeIban: Judge = (m) => {
  const raw = m[0];
  const country = raw.slice(0, 2).toUpperCase();
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return null;
  // The pattern may run on into a short word after the IBAN; cut it at the country's length.
  let count = 0;
  let end = 0;
  while (end < raw.length && count < length) {
    if (raw[end] !== ' ') count++;
    end++;
  }
  if (count < length || (end < raw.length && raw[end] !== ' ')) return null;
  const compact = raw.slice(0, end).replace(/ /g, '').toUpperCase();
  const check = Number(compact.slice(2, 4));
  if (check < 2 || check > 98 || !ibanChecksumValid(compact)) return null;
  return { confidence: 0.95, end: m.index + end };
};

const judgeSsn: Judge = (m, text) => {
  if (!ssnValid(m[1]!, m[3]!, m[4]!)) return null;
  const base = m[2] === '-' ? 0.92 : 0.8;
  return { confidence: SSN_CONTEXT_RE.test(before(text, m.index, 40)) ? 0.95 : base };
};

/** Nine bare digits: an SSN with SSN context, or an ABA routing number with routing context. */
const judgeNineDigits: Judge = (m, text) => {
  const d = m[0];
  const ctx = before(text, m.index, 40);
  if (ROUTING_CONTEXT_RE.test(ctx) && abaValid(d)) return { confidence: 0.95, label: 'BANK_ACCOUNT' };
  if (SSN_CONTEXT_RE.test(ctx) && ssnValid(d.slice(0, 3), d.slice(3, 5), d.slice(5))) return { confidence: 0.85 };
  return null;
};

const judgeVin: Judge = (m) => {
  const vin = m[0];
  if (!/[A-Z]/.test(vin) || !/\d/.test(vin) || !vinCheckDigitValid(vin)) return null;
  return { confidence: 0.95 };
};

const judgeIpv4: Judge = (m, text) =>
  VERSION_CONTEXT_RE.test(before(text, m.index, 12)) ? null : { confidence: 0.85 };
const judgeIpv6: Judge = (m) => (ipv6Plausible(m[0]) ? { confidence: 0.85 } : null);

const judgeMac: Judge = (m) => {
  if (m[1] === ':') return { confidence: 0.9 };
  return { confidence: /[A-Fa-f]/.test(m[0]) ? 0.85 : 0.7 };
};
const judgeCiscoMac: Judge = (m) => (/[A-Fa-f]/.test(m[0]) ? { confidence: 0.8 } : null);

const STOPWORDS = new Set([
  'The',
  'A',
  'An',
  'Of',
  'In',
  'On',
  'At',
  'To',
  'For',
  'And',
  'Or',
  'By',
  'With',
  'From',
  'Is',
  'Are',
  'Was',
  'Were',
  'My',
  'Our',
  'Your',
  'Their',
  'His',
  'Her',
  'This',
  'That',
  'These',
  'Those',
  'Its',
  'Per',
  'Each',
  'Every',
  'I',
  'We',
  'You',
  'They',
  'It',
  'He',
  'She',
]);

const judgeStreet: Judge = (m) => {
  const words = m[2]!.trim().split(/ +/);
  if (words.some((w) => STOPWORDS.has(w.replace(/\.$/, '')))) return null;
  let confidence = 0.65;
  if (m[3] || m[4]) confidence += 0.1;
  if (m[5]) confidence += 0.1;
  return { confidence };
};

const RECOGNIZERS: readonly Recognizer[] = [
  { label: 'EMAIL_ADDRESS', re: EMAIL_RE, needs: 'at', judge: judgeEmail },
  { label: 'CREDIT_CARD', re: CARD_RE, needs: 'digit', judge: judgeCard },
  { label: 'IBAN_CODE', re: IBAN_RE, needs: 'digit', judge: judgeIban },
  { label: 'US_SSN', re: SSN_RE, needs: 'digit', judge: judgeSsn },
  { label: 'US_SSN', re: NINE_DIGITS_RE, needs: 'digit', judge: judgeNineDigits },
  { label: 'VIN', re: VIN_RE, needs: 'digit', judge: judgeVin },
  { label: 'IP_ADDRESS', re: IPV4_RE, needs: 'digit', judge: judgeIpv4 },
  { label: 'IP_ADDRESS', re: IPV6_RE, needs: 'colon', judge: judgeIpv6 },
  { label: 'MAC_ADDRESS', re: MAC_RE, needs: 'none', judge: judgeMac },
  { label: 'MAC_ADDRESS', re: MAC_CISCO_RE, needs: 'none', judge: judgeCiscoMac },
  { label: 'PHONE_NUMBER', re: PHONE_RE, needs: 'digit', judge: judgePhone },
  { label: 'PHONE_NUMBER', re: PHONE_DIGITS_RE, needs: 'phoneWord', judge: judgeBarePhone },
  { label: 'STREET_ADDRESS', re: STREET_RE, needs: 'digit', judge: judgeStreet },
];

/** One recognizer's hits; pauses between matches (its own copy of the regex: another scan may run meanwhile). */
function* runRecognizer(r: Recognizer, text: string, hits: Hit[], phones: PhoneBudget): Steps<void> {
  const re = new RegExp(r.re);
  let since = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index - since >= STEP_CHARS) {
      since = m.index;
      yield;
    }
    const verdict = r.judge(m, text, phones);
    if (verdict)
      hits.push({
        start: m.index,
        end: verdict.end ?? m.index + m[0].length,
        label: verdict.label ?? r.label,
        confidence: verdict.confidence,
      });
  }
}

/** Account numbers: digit runs within 30 chars after an account word (context-required). */
function* findAccounts(text: string, hits: Hit[]): Steps<void> {
  const context = new RegExp(ACCOUNT_CONTEXT_RE);
  const digits = new RegExp(ACCOUNT_DIGITS_RE);
  let searchedTo = 0;
  let since = 0;
  for (let c = context.exec(text); c !== null; c = context.exec(text)) {
    if (c.index - since >= STEP_CHARS) {
      since = c.index;
      yield;
    }
    const from = Math.max(c.index + c[0].length, searchedTo);
    const limit = c.index + c[0].length + CONTEXT_CHARS;
    digits.lastIndex = from;
    for (let m = digits.exec(text); m !== null && m.index <= limit; m = digits.exec(text)) {
      hits.push({ start: m.index, end: m.index + m[0].length, label: 'BANK_ACCOUNT', confidence: 0.85 });
      searchedTo = m.index + m[0].length;
    }
    searchedTo = Math.max(searchedTo, limit);
  }
}

/** Keeps the best of each group of overlapping hits: higher confidence, then longer, then earlier. */
function resolveOverlaps(hits: Hit[]): Hit[] {
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Hit[] = [];
  let i = 0;
  while (i < hits.length) {
    // One cluster: hits chained by overlap. Clusters are small, so a quadratic pick inside is cheap.
    let j = i + 1;
    let clusterEnd = hits[i]!.end;
    while (j < hits.length && hits[j]!.start < clusterEnd) {
      clusterEnd = Math.max(clusterEnd, hits[j]!.end);
      j++;
    }
    if (j - i === 1) kept.push(hits[i]!);
    else {
      const ranked = hits
        .slice(i, j)
        .sort((a, b) => b.confidence - a.confidence || b.end - b.start - (a.end - a.start) || a.start - b.start);
      const chosen: Hit[] = [];
      for (const h of ranked) if (!chosen.some((c) => h.start < c.end && c.start < h.end)) chosen.push(h);
      kept.push(...chosen.sort((a, b) => a.start - b.start));
    }
    i = j;
  }
  return kept;
}

/** Regex PII items (`source: 'regex'`) over the normalised text, spans in original offsets. */
export function findPiiRegex(input: DetectorInput): FindingItem[] {
  return runNow(piiRegexSteps(input));
}

/** findPiiRegex as steps that may pause (lib/steps.ts): a long text's recognizers run paced. */
export function* piiRegexSteps(input: DetectorInput): Steps<FindingItem[]> {
  const { text, original } = input.text;
  if (text.length === 0) return [];
  const digit = /\d/.test(text);
  const has = {
    digit,
    at: text.includes('@'),
    colon: text.includes(':'),
    phoneWord: digit && PHONE_WORD_RE.test(text),
    none: true,
  };
  const hits: Hit[] = [];
  const phones = newPhoneBudget();
  for (const r of RECOGNIZERS) {
    if (has[r.needs]) yield* runRecognizer(r, text, hits, phones);
    yield;
  }
  if (has.digit) yield* findAccounts(text, hits);
  return resolveOverlaps(hits).map((h) => {
    const span = input.text.toOriginal(h.start, h.end);
    // Two decimals: context boosts are sums of tenths, and 0.7 + 0.1 is 0.7999… in floating point.
    return {
      text: original.slice(span[0], span[1]),
      label: h.label,
      confidence: Math.round(h.confidence * 100) / 100,
      source: 'regex',
      span,
    };
  });
}
