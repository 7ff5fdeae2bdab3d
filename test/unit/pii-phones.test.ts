import { describe, expect, it } from 'vitest';
import type { FindingItem } from '../../engine/detector.ts';
import {
  DEFAULT_PHONE_REGIONS,
  judgeBarePhoneDigits,
  judgePhoneCandidate,
  newPhoneBudget,
  PHONE_LOOKUP_BUDGET,
} from '../../engine/detectors/pii-phones.ts';
import { findPiiRegex } from '../../engine/detectors/pii-regex.ts';
import { normalize } from '../../engine/normalize.ts';

const phones = (s: string): FindingItem[] => {
  const items = findPiiRegex({ text: normalize(s), surface: 'user_message', tier: 'fast' });
  for (const i of items) expect(s.slice(i.span[0], i.span[1])).toBe(i.text);
  return items.filter((i) => i.label === 'PHONE_NUMBER');
};

// [input, the exact text of the phone item]
const FOUND: [string, string][] = [
  // international: +, 00 and 011 call prefixes, with and without a "(0)" trunk
  ['Zürich desk +41 44 668 18 00 today', '+41 44 668 18 00'],
  ['Madrid +34 912 345 678.', '+34 912 345 678'],
  ['Tokyo +81-3-1234-5678', '+81-3-1234-5678'],
  ['Sydney +61 2 9374 4000', '+61 2 9374 4000'],
  ['Mumbai +91 98765 43210', '+91 98765 43210'],
  ['Lyon +33 (0)4 78 12 34 56', '+33 (0)4 78 12 34 56'],
  ['from Rome 0039 06 6982 1234', '0039 06 6982 1234'],
  ['from the US 011 49 30 901820', '011 49 30 901820'],
  ['unassigned but well formed +1 166-684-7899', '+1 166-684-7899'],
  // national, valid in a default region
  ['Berlin 030 901820', '030 901820'],
  ['München (089) 1234567', '(089) 1234567'],
  ['Dublin 01 671 1234', '01 671 1234'],
  ['Amsterdam 020-555 1234', '020-555 1234'],
  ['Sydney (02) 9374 4000', '(02) 9374 4000'],
  ['São Paulo (11) 3456-7890', '(11) 3456-7890'],
  ['Madrid 912 345 678', '912 345 678'],
  ['Toronto 416.555.0199', '416.555.0199'],
  // phone typography, possible but not valid: NANP groups, a parenthesised area code
  ['166-684-7899', '166-684-7899'],
  ['(88) 684-334 is my number', '(88) 684-334'],
  ['Telephone : ( 6221 ) 384-6364 .', '( 6221 ) 384-6364'],
  ['Büro 030/1234567', '030/1234567'],
  ['US style 1 (415) 555-2671', '1 (415) 555-2671'],
  // extensions stay inside the span
  ['call 415-555-2671 x 12 now', '415-555-2671 x 12'],
  ['desk (212) 859-1761 Ext: 7', '(212) 859-1761 Ext: 7'],
  ['020 7946 0958 extension 1234', '020 7946 0958 extension 1234'],
  ['+1 212 859 1761, ext. 45 after 5', '+1 212 859 1761, ext. 45'],
  ['001-748-088-2851x818', '001-748-088-2851x818'],
  // bare digits after a context word, valid in a region
  ['Fax: 9498777106', '9498777106'],
  ['mobile 07700900123', '07700900123'],
];

// inputs in which no phone may be found
const NOT_PHONES: string[] = [
  '+999 123 456 789', // no such calling code
  '+44 12', // too short
  '00999 1234 5678', // call prefix, then no such calling code
  'Deliver to DE 80785-2017', // ZIP+4
  'CEP 02504-847 centro', // Brazilian postal code
  'Vol. 12 (2019) 345-367', // year and pages
  'the 2023/2024 season',
  'season 2023/2024-25',
  'due 15/01/2024 or 2024/01/15',
  'logged 2024-01-15 10:30:45 UTC',
  'on 2024-01-15 we shipped',
  'ISBN 978-3-16-148410-0',
  'ISBN 0-306-40615-2',
  'release 1.2.3.4.5.6.7',
  'scores 10 20 30 40 50',
  'build 20240115 shipped',
  'order 4155552671 shipped', // bare digits without a context word
  'call me about order 1234567', // context, but not valid anywhere
  'SSN 536-22-1234',
  'card 3782 822463 10005',
  'IBAN GB82 WEST 1234 5698 7654 32',
  'host 192.168.100.200',
  '12345678901234567890',
  '1 2 3 4 5 6 7 8',
];

describe('phones (libphonenumber-js)', () => {
  it.each(FOUND)('finds %j', (input, text) => {
    expect(phones(input).map((i) => i.text)).toContain(text);
  });

  it.each(NOT_PHONES)('finds no phone in %j', (input) => {
    expect(phones(input)).toEqual([]);
  });

  it('ranks valid numbers above possible ones, and context or an extension higher still', () => {
    const conf = (s: string) => phones(s)[0]!.confidence;
    expect(conf('415-555-2671')).toBe(0.75);
    expect(conf('166-684-7899')).toBe(0.6);
    expect(conf('phone 415-555-2671')).toBe(0.85);
    expect(conf('166-684-7899 x12')).toBe(0.7);
    expect(conf('+44 20 7946 0958')).toBe(0.75);
    expect(conf('+44 171 542 8062')).toBe(0.6); // right length, number range not in use
    expect(conf('tel 555-2671')).toBe(0.6); // context only
    // `+` and a real calling code, but a length no current plan has: an old or mistyped number
    expect(conf('Zurich Editorial +41 1 631 7340')).toBe(0.55);
    expect(conf('+1 415 555 267')).toBe(0.55);
    for (const s of ['+44 20 7946 0958', 'phone 415-555-2671 ext. 9']) expect(conf(s)).toBeLessThan(0.9);
  });

  it('reads a national number only as the regions of the list write it', () => {
    // French with its trunk 0; without it, not French (and no other region's)
    expect(judgePhoneCandidate({ raw: '06 12 34 56 78', extension: false, context: false }, newPhoneBudget())).toBe(
      0.75,
    );
    expect(judgePhoneCandidate({ raw: '6 12 34 56 78', extension: false, context: false }, newPhoneBudget())).toBe(
      null,
    );
    // a German number is not judged when the list holds only the US
    const usOnly = [{ region: 'US' as const, trunk: '1' as const }];
    const de = { raw: '030 12345678', extension: false, context: false };
    expect(judgePhoneCandidate(de, newPhoneBudget())).toBe(0.75);
    expect(judgePhoneCandidate(de, newPhoneBudget(), usOnly)).toBe(null);
    expect(DEFAULT_PHONE_REGIONS.map((r) => r.region)).toEqual(expect.arrayContaining(['US', 'GB', 'DE', 'FR', 'IN']));
  });

  it('accepts bare digits only when valid in a region', () => {
    expect(judgeBarePhoneDigits('5403926876', newPhoneBudget())).toBe(0.7);
    expect(judgeBarePhoneDigits('1234567890', newPhoneBudget())).toBe(null);
    expect(judgeBarePhoneDigits('123456', newPhoneBudget())).toBe(null);
  });

  it('falls back to the shape rules once the per-scan lookup budget is spent', () => {
    const spent = { lookups: 0 };
    expect(judgePhoneCandidate({ raw: '415-555-2671', extension: false, context: false }, spent)).toBe(0.6);
    expect(judgePhoneCandidate({ raw: '+44 20 7946 0958', extension: false, context: false }, spent)).toBe(0.6);
    expect(judgePhoneCandidate({ raw: '912 345 678', extension: false, context: false }, spent)).toBe(null);
    // a text full of phone-shaped numbers still finds them all, past the budget, in bounded time
    const text = '415-555-2671; '.repeat(PHONE_LOOKUP_BUDGET + 500);
    const t0 = performance.now();
    expect(phones(text)).toHaveLength(PHONE_LOOKUP_BUDGET + 500);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});
