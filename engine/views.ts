/**
 * Extra views of the content: encoded segments (base64, hex) decoded so the prompt-injection model
 * also reads what an attacker hid in them, and the text with obfuscated spellings undone (letter-spaced
 * words, leetspeak) for the toxicity models. Each view remembers the normalised range it came from.
 */
import { runNow, STEP_CHARS, type Steps } from '../lib/steps.ts';

export interface TextView {
  /** The decoded text. */
  text: string;
  /** [start, end) in the normalised text of the encoded segment. */
  start: number;
  end: number;
  encoding: 'base64' | 'hex' | 'spelling';
}

/** Runs of at least this many base64 (standard or URL-safe) alphabet characters are candidates. */
const BASE64_MIN_RUN = 24;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}[\s:]?){16,}\b/g;
const MAX_VIEWS = 16;

/** Decoded segments that read as text (mostly printable); at most 16 per scan. */
export function decodedViews(text: string): TextView[] {
  return runNow(decodedViewsSteps(text));
}

/** decodedViews as steps that may pause (lib/steps.ts). */
export function* decodedViewsSteps(text: string): Steps<TextView[]> {
  const views: TextView[] = [];
  for (const [start, end] of yield* base64RunsSteps(text)) {
    if (views.length >= MAX_VIEWS) break;
    const raw = text.slice(start, end);
    // Identifiers, hashes and words are base64-alphabet too: require a mix that encoding produces.
    if (!/[a-z]/.test(raw) || !/[A-Z]/.test(raw) || !/[0-9+/=_-]/.test(raw)) continue;
    const decoded = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (readable(decoded)) views.push({ text: decoded, start, end, encoding: 'base64' });
  }
  let since = 0;
  for (const m of text.matchAll(HEX_RUN)) {
    if (m.index - since >= STEP_CHARS) {
      since = m.index;
      yield;
    }
    if (views.length >= MAX_VIEWS) break;
    const decoded = Buffer.from(m[0].replace(/[\s:]/g, ''), 'hex').toString('utf8');
    if (readable(decoded)) views.push({ text: decoded, start: m.index, end: m.index + m[0].length, encoding: 'hex' });
  }
  return views;
}

const B64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') B64[c.charCodeAt(0)] = 1;

/**
 * [start, end) of every run of ≥ 24 base64-alphabet characters and the up to two "=" after it: what
 * `/[A-Za-z0-9+/_-]{24,}={0,2}/g` matches, in one linear pass (the regex retries from every
 * character of every shorter run; this was 2% of a scan's main-thread time).
 */
export function base64Runs(text: string): [number, number][] {
  return runNow(base64RunsSteps(text));
}

function* base64RunsSteps(text: string): Steps<[number, number][]> {
  const out: [number, number][] = [];
  const n = text.length;
  let i = 0;
  let pauseAt = STEP_CHARS;
  while (i < n) {
    if (i >= pauseAt) {
      pauseAt = i + STEP_CHARS;
      yield;
    }
    const c = text.charCodeAt(i);
    if (c >= 128 || B64[c] === 0) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d >= 128 || B64[d] === 0) break;
      j++;
    }
    if (j - i >= BASE64_MIN_RUN) {
      let end = j;
      while (end < n && end - j < 2 && text.charCodeAt(end) === 61) end++;
      out.push([i, end]);
      i = end;
    } else i = j;
  }
  return out;
}

/** Mostly letters, digits, spaces and punctuation, with at least a few words. */
function readable(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let spaces = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 10 || c === 9 || c > 159) printable++;
    if (c === 32) spaces++;
  }
  return printable / s.length > 0.95 && spaces >= 2 && !s.includes('\uFFFD');
}

/** Three or more single letters separated by single spaces or dots ("h a t e", "k.i.l.l"). */
const SPACED_LETTERS = /\b[A-Za-z](?:[ .][A-Za-z]\b){2,}/g;
/** A word mixing letters with the digits and signs leetspeak stands in for letters ("h4te", "sh1t", "1d10t"); not after "#". */
const LEET_WORD = /(?<![\w@$#])(?=[\w@$]*[A-Za-z])(?=[\w@$]*[013457@$])[A-Za-z013457@$]{3,}(?![\w@$]|\.[A-Za-z])/g;
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };

/**
 * The whole text with letter-spaced words joined and leetspeak words read as letters, or null when it has
 * neither. A word is read as leetspeak only when it keeps at least two letters ("mp3" and "4th" stay, harmless
 * either way: the view is scored beside the text, never instead of it).
 */
export function spellingView(text: string): TextView | null {
  return runNow(spellingViewSteps(text));
}

/** spellingView as steps that may pause (lib/steps.ts). */
export function* spellingViewSteps(text: string): Steps<TextView | null> {
  let changed = false;
  const joined = yield* replaceSteps(text, SPACED_LETTERS, (m) => {
    changed = true;
    // "I h a t e" / "a s s": a leading pronoun or article stays a word of its own
    const lead = /^[IAa] [A-Za-z](?:[ .][A-Za-z]){2,}$/.test(m) ? m.slice(0, 2) : '';
    return lead + m.slice(lead.length).replace(/[ .]/g, '');
  });
  const out = yield* replaceSteps(joined, LEET_WORD, (w) => {
    // quantities and ordinals ("4th", "10km"), @mentions, $tickers and identifiers with capitals inside
    // ("PS4", "WWG1WGA") are not leetspeak (hashtags never reach here)
    if ((w.match(/[A-Za-z]/g) ?? []).length < 2 || /^\d+[A-Za-z]{1,3}$/.test(w) || /^[@$]/.test(w) || /.[A-Z]/.test(w))
      return w;
    changed = true;
    return w.replace(/[013457@$]/g, (c) => LEET[c] ?? c);
  });
  return changed && out !== text ? { text: out, start: 0, end: text.length, encoding: 'spelling' } : null;
}

/** `text.replace(re, f)` for a global regex that never matches the empty string, pausing between matches. */
function* replaceSteps(text: string, re: RegExp, f: (match: string) => string): Steps<string> {
  let out = '';
  let last = 0;
  let since = 0;
  for (const m of text.matchAll(re)) {
    out += text.slice(last, m.index) + f(m[0]);
    last = m.index + m[0].length;
    if (m.index - since >= STEP_CHARS) {
      since = m.index;
      yield;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}
