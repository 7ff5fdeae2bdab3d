import { describe, expect, it } from 'vitest';
import type { DetectorInput, FindingItem } from '../../engine/detector.ts';
import {
  abaValid,
  cardNetwork,
  ibanChecksumValid,
  luhnValid,
  ssnValid,
  vinCheckDigitValid,
} from '../../engine/detectors/pii-patterns.ts';
import { findPiiRegex, PII_REGEX_LABELS } from '../../engine/detectors/pii-regex.ts';
import { normalize } from '../../engine/normalize.ts';

const scan = (s: string): FindingItem[] => {
  const input: DetectorInput = { text: normalize(s), surface: 'user_message', tier: 'fast' };
  const items = findPiiRegex(input);
  // Every item, in every test: a known label, regex source, and a span that is the item's text.
  for (const i of items) {
    expect(PII_REGEX_LABELS).toContain(i.label);
    expect(i.source).toBe('regex');
    expect(s.slice(i.span[0], i.span[1])).toBe(i.text);
    expect(i.confidence).toBeGreaterThan(0);
    expect(i.confidence).toBeLessThanOrEqual(1);
    expect(Math.round(i.confidence * 100) / 100).toBe(i.confidence);
  }
  return items;
};

// [input, label, the exact original text the item must cover]
const POSITIVE: [string, string, string][] = [
  ['mail me at john.doe+tag@example.co.uk today', 'EMAIL_ADDRESS', 'john.doe+tag@example.co.uk'],
  ['<a.b@sub.example.org>', 'EMAIL_ADDRESS', 'a.b@sub.example.org'],
  ['card: 4111 1111 1111 1111.', 'CREDIT_CARD', '4111 1111 1111 1111'],
  ['4111-1111-1111-1111', 'CREDIT_CARD', '4111-1111-1111-1111'],
  ['pay with 4111111111111111 now', 'CREDIT_CARD', '4111111111111111'],
  ['Mastercard 5555 5555 5555 4444', 'CREDIT_CARD', '5555 5555 5555 4444'],
  ['MC 2-series 2221000000000009', 'CREDIT_CARD', '2221000000000009'],
  ['Amex 3782 822463 10005', 'CREDIT_CARD', '3782 822463 10005'],
  ['Discover 6011 1111 1111 1117', 'CREDIT_CARD', '6011 1111 1111 1117'],
  ['JCB 3530111333300000', 'CREDIT_CARD', '3530111333300000'],
  ['JCB 3598899323053410', 'CREDIT_CARD', '3598899323053410'],
  ['JCB-15 180020497005751', 'CREDIT_CARD', '180020497005751'],
  ['Maestro 503890547220', 'CREDIT_CARD', '503890547220'],
  ['UnionPay 6250941006528599', 'CREDIT_CARD', '6250941006528599'],
  ['Diners 3056 9309 0259 04', 'CREDIT_CARD', '3056 9309 0259 04'],
  ['IBAN GB82 WEST 1234 5698 7654 32 please', 'IBAN_CODE', 'GB82 WEST 1234 5698 7654 32'],
  ['DE89 3704 0044 0532 0130 00', 'IBAN_CODE', 'DE89 3704 0044 0532 0130 00'],
  ['compact DE89370400440532013000.', 'IBAN_CODE', 'DE89370400440532013000'],
  ['FR14 2004 1010 0505 0001 3M02 606', 'IBAN_CODE', 'FR14 2004 1010 0505 0001 3M02 606'],
  ['NL91 ABNA 0417 1643 00', 'IBAN_CODE', 'NL91 ABNA 0417 1643 00'],
  ['BE68 5390 0754 7034 is the account', 'IBAN_CODE', 'BE68 5390 0754 7034'],
  ['NO93 8601 1117 947', 'IBAN_CODE', 'NO93 8601 1117 947'],
  ['SSN 536-22-1234', 'US_SSN', '536-22-1234'],
  ['my number is 123 45 6789', 'US_SSN', '123 45 6789'],
  ['social security number: 536221234', 'US_SSN', '536221234'],
  ['VIN 1HGCM82633A004352', 'VIN', '1HGCM82633A004352'],
  ['truck 1M8GDM9AXKP042788 sold', 'VIN', '1M8GDM9AXKP042788'],
  ['server 192.168.1.1 is down', 'IP_ADDRESS', '192.168.1.1'],
  ['from 255.255.255.0,', 'IP_ADDRESS', '255.255.255.0'],
  ['v6 2001:db8::ff00:42:8329 here', 'IP_ADDRESS', '2001:db8::ff00:42:8329'],
  ['full 2001:0db8:85a3:0000:0000:8a2e:0370:7334', 'IP_ADDRESS', '2001:0db8:85a3:0000:0000:8a2e:0370:7334'],
  ['link-local fe80::1 and mapped ::ffff:192.0.2.128', 'IP_ADDRESS', '::ffff:192.0.2.128'],
  ['[::1]:8080', 'IP_ADDRESS', '::1'],
  ['mac 00:1A:2B:3C:4D:5E', 'MAC_ADDRESS', '00:1A:2B:3C:4D:5E'],
  ['mac 00-1a-2b-3c-4d-5e', 'MAC_ADDRESS', '00-1a-2b-3c-4d-5e'],
  ['cisco 001a.2b3c.4d5e.', 'MAC_ADDRESS', '001a.2b3c.4d5e'],
  ['routing number 021000021', 'BANK_ACCOUNT', '021000021'],
  ['ABA: 011000015', 'BANK_ACCOUNT', '011000015'],
  ['account number: 12345678', 'BANK_ACCOUNT', '12345678'],
  ['acct# 000123456789', 'BANK_ACCOUNT', '000123456789'],
  ['a/c 9876543210', 'BANK_ACCOUNT', '9876543210'],
  ['call (415) 555-2671', 'PHONE_NUMBER', '(415) 555-2671'],
  ['+1 415 555 2671', 'PHONE_NUMBER', '+1 415 555 2671'],
  ['Berlin office +49 30 91839109', 'PHONE_NUMBER', '+49 30 91839109'],
  ['tel:+14155552671', 'PHONE_NUMBER', '+14155552671'],
  ['office 415-555-2671 ext', 'PHONE_NUMBER', '415-555-2671'],
  ['1-800-555-0199', 'PHONE_NUMBER', '1-800-555-0199'],
  ['London 020 7946 0958', 'PHONE_NUMBER', '020 7946 0958'],
  ['+44 20 7946 0958', 'PHONE_NUMBER', '+44 20 7946 0958'],
  ['Paris 06 12 34 56 78', 'PHONE_NUMBER', '06 12 34 56 78'],
  ['+33 1 23 45 67 89', 'PHONE_NUMBER', '+33 1 23 45 67 89'],
  ['phone: 555-2671', 'PHONE_NUMBER', '555-2671'],
  ['reach me at 001-748-088-2851x818 today', 'PHONE_NUMBER', '001-748-088-2851x818'],
  ['my cell is 166-684-7899x123.', 'PHONE_NUMBER', '166-684-7899x123'],
  ['desk 415 555 2671 ext. 45 please', 'PHONE_NUMBER', '415 555 2671 ext. 45'],
  ['from abroad 0044 20 7946 0958', 'PHONE_NUMBER', '0044 20 7946 0958'],
  ['dial 011 44 20 7946 0958', 'PHONE_NUMBER', '011 44 20 7946 0958'],
  ['I live at 123 Main Street, Springfield, IL 62701.', 'STREET_ADDRESS', '123 Main Street, Springfield, IL 62701'],
  [
    '1600 Pennsylvania Avenue NW, Washington, DC 20500',
    'STREET_ADDRESS',
    '1600 Pennsylvania Avenue NW, Washington, DC 20500',
  ],
  ['221B Baker Street', 'STREET_ADDRESS', '221B Baker Street'],
  ['350 5th Avenue, Suite 300', 'STREET_ADDRESS', '350 5th Avenue, Suite 300'],
  ['ship to 42 Wallaby Way', 'STREET_ADDRESS', '42 Wallaby Way'],
  ['12 Martin Luther King Jr Blvd', 'STREET_ADDRESS', '12 Martin Luther King Jr Blvd'],
];

// [input, label that must NOT be reported ('ANY': nothing at all)]
const NEGATIVE: [string, string][] = [
  ['screen 1920x1080 at 60 Hz', 'PHONE_NUMBER'],
  ['part 12-345x6 in stock', 'PHONE_NUMBER'],
  ['card 4111 1111 1111 1112', 'ANY'], // bad Luhn
  ['9111 1111 1111 1111', 'CREDIT_CARD'], // Luhn-valid shape, unknown IIN
  ['order 1234567812345678', 'ANY'],
  ['IBAN GB82 WEST 1234 5698 7654 33', 'ANY'], // bad mod-97
  ['DE89 3704 0044 0532 0130 0', 'IBAN_CODE'], // too short for DE
  ['XX89 3704 0044 0532 0130 00', 'IBAN_CODE'], // no such country
  ['SSN 000-12-3456', 'ANY'],
  ['SSN 666-12-3456', 'ANY'],
  ['SSN 912-12-3456', 'ANY'],
  ['SSN 123-00-4567', 'ANY'],
  ['SSN 123-45-0000', 'ANY'],
  ['078-05-1120', 'ANY'],
  ['219-09-9999', 'ANY'],
  ['123-45 6789', 'US_SSN'], // mixed separators
  ['VIN 1HGCM82633A004353', 'ANY'], // bad check digit
  ['ABCDEFGHJKLMNPRST', 'ANY'], // no digits
  ['11111111111111111', 'VIN'], // no letters
  ['999.1.1.1', 'ANY'],
  ['256.1.1.1', 'IP_ADDRESS'],
  ['release v1.2.3.4', 'ANY'],
  ['version 10.0.0.1', 'ANY'],
  ['oid 1.3.6.1.4.1.311', 'ANY'],
  ['std::vector and Foo::Bar', 'ANY'],
  ['meet at 12:30:45', 'ANY'],
  ['the a::b operator', 'ANY'],
  ['on 2024-01-15 we shipped', 'ANY'],
  ['due 15.01.2024', 'ANY'],
  ['in 1999 and 2024', 'ANY'],
  ['order 123456789', 'ANY'],
  ['routing 021000022', 'ANY'], // bad ABA checksum
  ['id 12345678', 'ANY'],
  ['account created on 2024-01-15', 'ANY'],
  ['version 1.2.3', 'ANY'],
  ['1,234,567 units', 'ANY'],
  ['3.14159 is pi', 'ANY'],
  ['scores 10 20 30 40 50', 'ANY'],
  ['image logo@2x.png', 'ANY'],
  ['user@localhost', 'ANY'],
  ['the street was empty', 'ANY'],
  ['we walked 5 Miles Down The Road', 'ANY'],
  ['Main Street has 3 shops', 'ANY'],
  ['abcdef1234567890abcdef', 'ANY'],
  ['sha 9f86d081884c7d659a2feaa0c55ad015', 'ANY'],
  ['12345678901234567890123', 'ANY'], // one long digit run: no match inside it
  ['x4111111111111111', 'ANY'], // glued to a word
  ['page 12 of 40', 'ANY'],
];

describe('findPiiRegex', () => {
  it('has at least 25 positive and 25 negative cases', () => {
    expect(POSITIVE.length).toBeGreaterThanOrEqual(25);
    expect(NEGATIVE.length).toBeGreaterThanOrEqual(25);
  });

  it.each(POSITIVE)('finds in %j: %s', (input, label, text) => {
    const items = scan(input);
    expect(items.map((i) => [i.label, i.text])).toContainEqual([label, text]);
  });

  it.each(NEGATIVE)('finds nothing in %j (%s)', (input, label) => {
    const items = scan(input);
    if (label === 'ANY') expect(items).toEqual([]);
    else expect(items.map((i) => i.label)).not.toContain(label);
  });

  it('gives checksum-validated identifiers 0.95 and weaker shapes less', () => {
    const [card] = scan('4111 1111 1111 1111');
    const [phone] = scan('415-555-2671');
    const [address] = scan('42 Wallaby Way');
    const [account] = scan('account 12345678');
    expect(card!.confidence).toBeGreaterThanOrEqual(0.95);
    expect(account!.confidence).toBeCloseTo(0.85);
    expect(phone!.confidence).toBeGreaterThanOrEqual(0.6);
    expect(phone!.confidence).toBeLessThanOrEqual(0.85);
    expect(address!.confidence).toBeGreaterThanOrEqual(0.6);
    expect(address!.confidence).toBeLessThanOrEqual(0.85);
  });

  it('keeps the more confident of overlapping matches', () => {
    // A card number after "account" is both a card (0.95) and an account number (0.85).
    const items = scan('account 4111111111111111');
    expect(items.map((i) => i.label)).toEqual(['CREDIT_CARD']);
    // The IBAN's digit groups are not a phone number.
    expect(scan('GB82 WEST 1234 5698 7654 32').map((i) => i.label)).toEqual(['IBAN_CODE']);
  });

  it('reports several identifiers in order, with exact spans', () => {
    const text = 'Reach jane@example.com or +44 20 7946 0958; card 5555 5555 5555 4444, host 10.0.0.7.';
    const items = scan(text);
    expect(items.map((i) => i.label)).toEqual(['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IP_ADDRESS']);
    expect(items.map((i) => i.text)).toEqual([
      'jane@example.com',
      '+44 20 7946 0958',
      '5555 5555 5555 4444',
      '10.0.0.7',
    ]);
  });

  it.each([
    // [original with invisible / fullwidth / homoglyph characters, label, expected original slice]
    ['card 4111\u200B 1111 1111\u200D 1111 ok', 'CREDIT_CARD', '4111\u200B 1111 1111\u200D 1111'],
    ['card ４１１１ １１１１ １１１１ １１１１', 'CREDIT_CARD', '４１１１ １１１１ １１１１ １１１１'],
    ['\u200Bssn\u200B 536-22-1234', 'US_SSN', '536-22-1234'],
    ['ip １９２.１６８.０.１ ok', 'IP_ADDRESS', '１９２.１６８.０.１'],
    ['mail j\u043Ehn@ex\u0430mple.com', 'EMAIL_ADDRESS', 'j\u043Ehn@ex\u0430mple.com'],
    ['IBAN \u0412E68 5390 0754 7034', 'IBAN_CODE', '\u0412E68 5390 0754 7034'],
    ['\u202Ecall\u202C (415) 555\u20602671', 'PHONE_NUMBER', '(415) 555\u20602671'],
  ])('maps spans back through normalisation: %j', (input, label, slice) => {
    const items = scan(input);
    const hit = items.find((i) => i.label === label);
    expect(hit?.text).toBe(slice);
  });

  it('stays linear on adversarial 1 MB inputs', () => {
    for (const big of [
      '1 '.repeat(500_000),
      '1'.repeat(1_000_000),
      'a@'.repeat(500_000),
      '1.'.repeat(500_000),
      '1 Aa '.repeat(200_000),
      'ab:'.repeat(333_333),
    ]) {
      const t0 = performance.now();
      findPiiRegex({ text: normalize(big), surface: 'user_message', tier: 'fast' });
      expect(performance.now() - t0).toBeLessThan(3000);
    }
  });
});

describe('PII validators', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['378282246310005', true],
    ['79927398713', true],
  ])('luhn(%s) = %s', (d, ok) => expect(luhnValid(d)).toBe(ok));

  it.each([
    ['4111111111111111', 'visa'],
    ['5105105105105100', 'mastercard'],
    ['2720990000000000', 'mastercard'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['3566002020360505', 'jcb'],
    ['30569309025904', 'diners'],
    ['9111111111111111', null],
    ['411111111111111', null],
  ])('cardNetwork(%s) = %s', (d, network) => expect(cardNetwork(d)).toBe(network));

  it('validates IBAN mod-97, SSN area rules, VIN and ABA check digits', () => {
    expect(ibanChecksumValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanChecksumValid('GB82WEST12345698765433')).toBe(false);
    expect(ssnValid('536', '22', '1234')).toBe(true);
    expect(ssnValid('900', '22', '1234')).toBe(false);
    expect(vinCheckDigitValid('1HGCM82633A004352')).toBe(true);
    expect(vinCheckDigitValid('1HGCM82633A004353')).toBe(false);
    expect(abaValid('021000021')).toBe(true);
    expect(abaValid('021000022')).toBe(false);
  });
});
