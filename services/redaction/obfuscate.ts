/**
 * Applies a redaction policy to one text given the PII detector's items: spans the policy passes
 * through are dropped, overlapping ones merged, and each merged span replaced by a typed tag
 * (`[EMAIL_ADDRESS]`) or a keyed hash tag (`[EMAIL_ADDRESS:hmac:<16 hex>]`). Offsets are UTF-16
 * units of the original text (the engine maps them back from its normalised text); a span edge that
 * would split a surrogate pair is widened to the whole character. A rule keyed by a field name
 * (`input`, …) instead applies to the field's whole value, before and instead of its spans.
 */
import { hmacSha256 } from '../../lib/crypto.ts';
import type { FindingItem } from '../../engine/detector.ts';
import type { Obfuscation } from '../../store/redaction-policies.ts';

/** The parts of a policy the obfuscation reads. */
export interface ObfuscationRules {
  field_rules: Readonly<Record<string, Obfuscation>>;
  default_obfuscation: Obfuscation;
}

interface Span {
  start: number;
  end: number;
  label: string;
  obfuscation: Exclude<Obfuscation, 'pass_through'>;
}

/** Hex characters of the HMAC kept in a hash tag (64 bits: joinable, not reversible by enumeration of a small set alone). */
const HASH_HEX = 16;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** [start, end) widened so neither edge falls between the halves of a surrogate pair. */
function wholeCharacters(text: string, start: number, end: number): [number, number] {
  let s = Math.max(0, Math.min(start, text.length));
  let e = Math.max(s, Math.min(end, text.length));
  if (s > 0 && isLow(text.charCodeAt(s)) && isHigh(text.charCodeAt(s - 1))) s -= 1;
  if (e > 0 && e < text.length && isHigh(text.charCodeAt(e - 1)) && isLow(text.charCodeAt(e))) e += 1;
  return [s, e];
}

/**
 * The redacted fields a `field_rules` key may name (besides PII labels): labeled events' `input`,
 * `output`, `comparator` and `verdict_reason`, red-team runs' `scope_redacted` and `verdict_reason`,
 * red-team findings' `title` and `description`. Lower case, so no name is also a label.
 */
export const REDACTION_FIELDS = [
  'input',
  'output',
  'comparator',
  'verdict_reason',
  'scope_redacted',
  'title',
  'description',
] as const;
export type RedactionField = (typeof REDACTION_FIELDS)[number];

/** The field's own rule, which applies to its whole value; undefined: its spans go by their labels. */
export function fieldRuleOf(rules: ObfuscationRules, field: RedactionField | undefined): Obfuscation | undefined {
  return field !== undefined && Object.hasOwn(rules.field_rules, field) ? rules.field_rules[field] : undefined;
}

/**
 * A string of a field with a rule of its own, as the rule says: `pass_through` as is, `redact` the tag
 * `[<field>]`, `hash` `[<field>:hmac:<16 hex>]` of the whole string; an empty string stays empty.
 */
export function obfuscateWhole(value: string, field: RedactionField, rule: Obfuscation, orgKey: Buffer): string {
  if (rule === 'pass_through' || value === '') return value;
  return rule === 'hash' ? hashTag(orgKey, field, value) : labelTag(field);
}

/** The obfuscation of a label under the rules: its own rule, else the default. */
export function obfuscationOf(rules: ObfuscationRules, label: string): Obfuscation {
  return Object.hasOwn(rules.field_rules, label) ? rules.field_rules[label]! : rules.default_obfuscation;
}

/**
 * The spans to replace, merged where they overlap: a merged span is hashed only when every part of
 * it is hashed (else redacted), and carries the label of its widest part.
 */
export function mergedSpans(text: string, items: readonly FindingItem[], rules: ObfuscationRules): Span[] {
  const spans: (Span & { width: number })[] = [];
  for (const item of items) {
    const obfuscation = obfuscationOf(rules, item.label);
    if (obfuscation === 'pass_through') continue;
    const [start, end] = wholeCharacters(text, item.span[0], item.span[1]);
    if (end > start) spans.push({ start, end, label: item.label, obfuscation, width: end - start });
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: (Span & { width: number })[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (!last || s.start >= last.end) {
      merged.push({ ...s });
      continue;
    }
    if (s.width > last.width) {
      last.label = s.label;
      last.width = s.width;
    }
    last.end = Math.max(last.end, s.end);
    if (s.obfuscation === 'redact') last.obfuscation = 'redact';
  }
  return merged.map(({ start, end, label, obfuscation }) => ({ start, end, label, obfuscation }));
}

/** The per-organization hashing key: equal values hash alike inside one organization only. */
export function organizationHashKey(masterHashKey: Buffer, orgId: string): Buffer {
  return hmacSha256(masterHashKey, `redaction-org:${orgId}`);
}

/** `[LABEL:hmac:<16 hex>]` of a value under the organization's key (the label is not hashed, so a value joins across labels). */
export function hashTag(orgKey: Buffer, label: string, value: string): string {
  return `[${label}:hmac:${hmacSha256(orgKey, value).toString('hex').slice(0, HASH_HEX)}]`;
}

/** `[LABEL]`: what `redact` puts in place of a span (and what an uncaptured scan stores of its matched text). */
export function labelTag(label: string): string {
  return `[${label}]`;
}

/** The text with every span the rules do not pass through replaced by its tag. */
export function obfuscateText(
  text: string,
  items: readonly FindingItem[],
  rules: ObfuscationRules,
  orgKey: Buffer,
): string {
  const spans = mergedSpans(text, items, rules);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    const value = text.slice(s.start, s.end);
    out += text.slice(at, s.start) + (s.obfuscation === 'hash' ? hashTag(orgKey, s.label, value) : labelTag(s.label));
    at = s.end;
  }
  return out + text.slice(at);
}
