/**
 * Phone judgement with libphonenumber-js. PHONE_RE (pii-patterns.ts) finds a candidate span; this
 * module decides whether it is a phone number and how sure we are:
 *
 * - International (`+`, or the `00` / `011` call prefixes): the calling code must exist; valid (the
 *   digits fit the country's plan) is strongest, possible (length) less so, and after a `+` a number
 *   whose length fits no current plan (old numbers, typos) is kept at a low confidence.
 * - National: the digits must be grouped as phones are written (NANP 3-3-4, a parenthesised or
 *   slash-separated area code, a trunk `0` and groups, 3-3-3) or follow a phone context word. Valid in
 *   one of the regions of `DEFAULT_PHONE_REGIONS`, read as that region writes it (with its trunk `0`
 *   where it has one), is the strong case; only possible (right length) is enough for the NANP,
 *   area-code and trunk shapes; a context word alone gives the weakest level.
 *
 * `max` metadata (about 150 kB, loaded once at import) carries each region's digit patterns, so
 * `isValid()` checks the digits; the default `min` metadata only checks lengths. A lookup (one
 * parse for one region) costs 5–50 µs, so verdicts are memoised per scan, candidates that no verdict
 * could save are dropped before any lookup, and each scan has a budget of lookups
 * (PHONE_LOOKUP_BUDGET); past it the shape rules alone decide, so a megabyte of phone-shaped digits
 * stays linear and bounded.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * Regions tried for numbers written without a country code, in order (the first valid one wins).
 * `trunk: '0'`: the region writes national numbers with a leading `0` (GB, DE, FR…), so a number
 * without it is not read as that region's (Indian mobiles written without the `0` therefore need `+91`
 * or a context word). `trunk: '1'` (NANP): the trunk `1` is optional, and no national number starts
 * with `0`. `null`: no trunk prefix (Italy's `0` belongs to the number). The list is a parameter of the
 * judges, not a setting: change it here.
 */
export const DEFAULT_PHONE_REGIONS: readonly PhoneRegion[] = [
  { region: 'US', trunk: '1' },
  { region: 'CA', trunk: '1' },
  { region: 'GB', trunk: '0' },
  { region: 'IE', trunk: '0' },
  { region: 'DE', trunk: '0' },
  { region: 'FR', trunk: '0' },
  { region: 'ES', trunk: null },
  { region: 'IT', trunk: null },
  { region: 'NL', trunk: '0' },
  { region: 'IN', trunk: '0' },
  { region: 'AU', trunk: '0' },
  { region: 'BR', trunk: '0' },
];

export interface PhoneRegion {
  region: CountryCode;
  trunk: '0' | '1' | null;
}

/** libphonenumber lookups (one parse per region tried, 5–50 µs each) allowed per scanned text. */
export const PHONE_LOOKUP_BUDGET = 500;

/** Per-scan state: lookups left, and the verdicts already reached (a text repeats its numbers). */
export interface PhoneBudget {
  lookups: number;
  memo?: Map<string, Evidence>;
}

export const newPhoneBudget = (): PhoneBudget => ({ lookups: PHONE_LOOKUP_BUDGET, memo: new Map() });

/** Confidence levels; a context word or an extension adds CONTEXT_BOOST to the first two. */
const VALID = 0.75;
const POSSIBLE = 0.6;
const CONTEXT_BOOST = 0.1;
/** `+` and an existing calling code, but a length no current plan has (1996's `+41 1 631 7340`). */
const KNOWN_CODE = 0.55;
/** A 7–15 digit candidate of no known shape, accepted only after a phone context word. */
const CONTEXT_ONLY = 0.6;
/** An unseparated digit run after a context word, valid in a region. */
const BARE_VALID = 0.7;

type Evidence = 'valid' | 'possible' | 'code' | null;
/** What a lookup says, or 'unchecked' once the budget is spent. */
type Lookup = Evidence | 'unchecked';

/** Dates, alone or at the head of a timestamp (`2024-01-15 10:30`). */
const DATE_SHAPES = [/^\d{4}([-./ ])\d{1,2}\1\d{1,2}$/, /^\d{1,2}([-./ ])\d{1,2}\1\d{2,4}$/, /^\d{4}-\d{2}-\d{2}[ T]/];
const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const CALL_PREFIX = /^(?:00|011)(?=[1-9])/;

/** Memoised per scan: the same digits get the same verdict. */
function remembered(budget: PhoneBudget, key: string, look: () => Lookup): Lookup {
  const known = budget.memo?.get(key);
  if (known !== undefined) return known;
  const found = look();
  if (found !== 'unchecked') budget.memo?.set(key, found);
  return found;
}

/**
 * An international number, digits after the `+`: valid, possible, 'code' (the calling code exists but
 * the length fits none of its plans: an old or mistyped number), or null (no such calling code).
 */
function international(digits: string, budget: PhoneBudget): Lookup {
  return remembered(budget, `+${digits}`, () => {
    if (budget.lookups <= 0) return 'unchecked';
    budget.lookups--;
    const parsed = parsePhoneNumberFromString(`+${digits}`, { extract: false });
    if (!parsed) return null;
    if (parsed.isValid()) return 'valid';
    return parsed.isPossible() ? 'possible' : 'code';
  });
}

/** A national number: the best evidence over the regions (the first valid one ends the search). */
function national(digits: string, budget: PhoneBudget, regions: readonly PhoneRegion[]): Lookup {
  return remembered(budget, digits, () => {
    let best: Evidence = null;
    for (const { region, trunk } of regions) {
      if (trunk === '0' ? digits[0] !== '0' : trunk === '1' && digits[0] === '0') continue;
      if (budget.lookups <= 0) return best ?? 'unchecked';
      budget.lookups--;
      const parsed = parsePhoneNumberFromString(digits, { defaultCountry: region, extract: false });
      // A trunk region must have stripped its `0`: "0612345678" is French, "612345678" is not.
      if (!parsed || (trunk === '0' && parsed.nationalNumber.length >= digits.length)) continue;
      if (parsed.isValid()) return 'valid';
      if (parsed.isPossible()) best = 'possible';
    }
    return best;
  });
}

/** How the digits are grouped: the typography that says "phone" without any validation. */
function shapeOf(raw: string, digits: string): 'nanp' | 'paren' | 'trunk' | 'grouped' | 'other' {
  const lens = raw
    .split(/\D+/)
    .filter((g) => g.length > 0)
    .map((g) => g.length);
  const key = lens.join(',');
  if (key === '3,3,4' || (key === '1,3,3,4' && digits[0] === '1')) return 'nanp';
  // an area code set off by a slash (`030/1234567`, `491/551-7227`); not `2023/2024`
  const slash = /^(\d{2,5})\/(.*)$/.exec(raw);
  if (slash) return /^(?:19|20)\d\d$/.test(slash[1]!) || slash[2]!.replace(/\D/g, '').length < 6 ? 'other' : 'paren';
  // `(2019) 345-367` is a citation's year and pages, not an area code
  if (/^\(\s?\d{1,5}\s?\)/.test(raw) && !/^\(\s?(?:19|20)\d\d\s?\)/.test(raw)) return 'paren';
  if (digits[0] === '0' && digits.length >= 9 && digits.length <= 12 && lens.every((n) => n >= 2)) return 'trunk';
  // 3-3-3: Spain's (and others') nine-digit numbers; two groups (ZIP+4, CEP, `5-4`) are too often not phones
  if (key === '3,3,3') return 'grouped';
  return 'other';
}

export interface PhoneCandidate {
  /** The candidate without its extension. */
  raw: string;
  extension: boolean;
  /** A phone context word sits just before the candidate. */
  context: boolean;
}

/** A candidate's confidence, or null when it is not a phone number. */
export function judgePhoneCandidate(
  c: PhoneCandidate,
  budget: PhoneBudget,
  regions = DEFAULT_PHONE_REGIONS,
): number | null {
  const { raw } = c;
  const digits = raw.replace(/\D/g, '');
  const callPrefix = raw[0] === '+' ? 0 : (CALL_PREFIX.exec(digits)?.[0].length ?? -1);
  // E.164 allows 15 digits after the call prefix; `00` / `011` must be followed by a separator-written number
  const significant = digits.length - Math.max(callPrefix, 0);
  if (digits.length < 7 || significant > 15) return null;
  if (DATE_SHAPES.some((re) => re.test(raw)) || DOTTED_QUAD.test(raw)) return null;
  const boost = c.context || c.extension ? CONTEXT_BOOST : 0;
  if (callPrefix >= 0 && (callPrefix === 0 || /\D/.test(raw))) {
    const evidence = significant >= 8 ? international(digits.slice(callPrefix), budget) : null;
    if (evidence === 'valid') return VALID + boost;
    if (evidence === 'possible' || evidence === 'unchecked') return POSSIBLE + boost;
    if (evidence === 'code' && callPrefix === 0) return KNOWN_CODE + boost;
    // `00…` / `011…` may still be a national number (a trunk 0 and an area code): judged below.
    if (callPrefix === 0) return null;
  }
  // AAA-GG-SSSS is the SSN shape; phones are not written that way.
  if (/^\d{3}\D\d{2}\D\d{4}$/.test(raw)) return null;
  const shape = shapeOf(raw, digits);
  const gated = c.context || c.extension;
  // no known typography and no context: nothing a lookup could change
  if (shape === 'other' && !gated) return null;
  const evidence = national(digits, budget, regions);
  if (evidence === 'valid') return VALID + boost;
  if (shape === 'nanp') return POSSIBLE + boost;
  if ((shape === 'paren' || shape === 'trunk') && evidence !== null) return POSSIBLE + boost;
  return gated ? CONTEXT_ONLY : null;
}

/**
 * An unseparated digit run after a phone context word ("Fax: 9498777106"): a phone only when valid
 * for a region of the list — possible-only digit runs are too often ids and order numbers.
 */
export function judgeBarePhoneDigits(
  digits: string,
  budget: PhoneBudget,
  regions = DEFAULT_PHONE_REGIONS,
): number | null {
  if (digits.length < 7 || digits.length > 15) return null;
  return national(digits, budget, regions) === 'valid' ? BARE_VALID : null;
}
