/**
 * The redactor's pure half (services/redaction/obfuscate.ts) on hand-made detector items: merging of
 * overlapping spans, which obfuscation a merged span gets, surrogate-pair edges, and the label set
 * `field_rules` accepts against the pii-ner manifest. No services needed.
 */
import { describe, expect, it } from 'vitest';
import type { FindingItem } from '../../engine/detector.ts';
import { PII_REGEX_LABELS } from '../../engine/detectors/pii-regex.ts';
import { modelEntry } from '../../inference/manifest.ts';
import { hashTag, mergedSpans, obfuscateText, organizationHashKey } from '../../services/redaction/obfuscate.ts';
import { PII_NER_LABELS, REDACTION_LABELS } from '../../services/redaction/policy.ts';

const KEY = organizationHashKey(Buffer.alloc(32, 7), 'org_1');
const item = (label: string, start: number, end: number, text = ''): FindingItem => ({
  text,
  label,
  confidence: 0.9,
  source: 'regex',
  span: [start, end],
});
const rules = (field_rules: Record<string, 'redact' | 'hash' | 'pass_through'>, d: 'redact' | 'hash' = 'redact') => ({
  field_rules,
  default_obfuscation: d,
});

describe('obfuscateText', () => {
  it('merges overlapping spans into one tag carrying the widest label', () => {
    const text = 'call 1 Main Street Springfield now';
    const items = [item('STREET_ADDRESS', 5, 18), item('ADDRESS', 5, 30), item('LOCATION', 19, 30)];
    expect(obfuscateText(text, items, rules({}), KEY)).toBe('call [ADDRESS] now');
  });

  it('keeps adjacent spans apart', () => {
    expect(obfuscateText('abcdef', [item('A', 0, 3), item('B', 3, 6)], rules({}), KEY)).toBe('[A][B]');
  });

  it('redacts a merged span when any part is redacted; hashes it only when every part is hashed', () => {
    const text = 'x Jane Roe y';
    const items = [item('PERSON', 2, 10), item('LOCATION', 7, 10)];
    expect(obfuscateText(text, items, rules({ PERSON: 'hash' }), KEY)).toBe('x [PERSON] y');
    expect(obfuscateText(text, items, rules({}, 'hash'), KEY)).toBe(`x ${hashTag(KEY, 'PERSON', 'Jane Roe')} y`);
  });

  it('drops pass_through spans before merging: an overlapping redacted span still goes', () => {
    const text = 'mail Jane.Roe@example.com';
    const items = [item('PERSON', 5, 13), item('EMAIL_ADDRESS', 5, 25)];
    expect(obfuscateText(text, items, rules({ PERSON: 'pass_through' }), KEY)).toBe('mail [EMAIL_ADDRESS]');
    expect(mergedSpans(text, [item('PERSON', 5, 13)], rules({ PERSON: 'pass_through' }))).toEqual([]);
  });

  it('widens a span edge that splits a surrogate pair to the whole character', () => {
    const text = 'a😀b😀c';
    // [2, 5) starts inside the first emoji (its low half) and ends inside the second (after its high half)
    expect(obfuscateText(text, [item('X', 2, 5)], rules({}), KEY)).toBe('a[X]c');
    expect(obfuscateText(text, [item('X', 2, 4)], rules({}), KEY)).toBe('a[X]😀c');
    expect(obfuscateText(text, [item('X', 1, 3)], rules({}), KEY)).toBe('a[X]b😀c');
  });

  it('clamps spans to the text and ignores empty ones', () => {
    expect(obfuscateText('abc', [item('X', 2, 99), item('Y', 1, 1)], rules({}), KEY)).toBe('ab[X]');
  });

  it('hashes with a per-organization key: same value same tag, other organization other tag', () => {
    const other = organizationHashKey(Buffer.alloc(32, 7), 'org_2');
    expect(hashTag(KEY, 'EMAIL_ADDRESS', 'a@b.co')).toBe(hashTag(KEY, 'EMAIL_ADDRESS', 'a@b.co'));
    expect(hashTag(KEY, 'EMAIL_ADDRESS', 'a@b.co')).not.toBe(hashTag(other, 'EMAIL_ADDRESS', 'a@b.co'));
    expect(hashTag(KEY, 'EMAIL_ADDRESS', 'a@b.co')).toMatch(/^\[EMAIL_ADDRESS:hmac:[0-9a-f]{16}\]$/);
  });
});

describe('REDACTION_LABELS', () => {
  it('is every regex label plus every label pii-ner emits (models/manifest.json)', () => {
    const ner = modelEntry('pii-ner') as unknown as { labels: string[] };
    expect([...PII_NER_LABELS].sort()).toEqual(ner.labels.filter((l) => l !== 'O').sort());
    expect([...REDACTION_LABELS].sort()).toEqual([...PII_REGEX_LABELS, ...PII_NER_LABELS].sort());
  });
});
