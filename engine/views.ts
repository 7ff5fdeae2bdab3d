/**
 * Extra views of the content: encoded segments (base64, hex) decoded so the prompt-injection model
 * also reads what an attacker hid in them. Each view remembers the normalised range it came from.
 */
export interface TextView {
  /** The decoded text. */
  text: string;
  /** [start, end) in the normalised text of the encoded segment. */
  start: number;
  end: number;
  encoding: 'base64' | 'hex';
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}[\s:]?){16,}\b/g;
const MAX_VIEWS = 16;

/** Decoded segments that read as text (mostly printable); at most 16 per scan. */
export function decodedViews(text: string): TextView[] {
  const views: TextView[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    if (views.length >= MAX_VIEWS) break;
    const raw = m[0];
    // Identifiers, hashes and words are base64-alphabet too: require a mix that encoding produces.
    if (!/[a-z]/.test(raw) || !/[A-Z]/.test(raw) || !/[0-9+/=_-]/.test(raw)) continue;
    const decoded = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (readable(decoded)) views.push({ text: decoded, start: m.index, end: m.index + raw.length, encoding: 'base64' });
  }
  for (const m of text.matchAll(HEX_RUN)) {
    if (views.length >= MAX_VIEWS) break;
    const decoded = Buffer.from(m[0].replace(/[\s:]/g, ''), 'hex').toString('utf8');
    if (readable(decoded)) views.push({ text: decoded, start: m.index, end: m.index + m[0].length, encoding: 'hex' });
  }
  return views;
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
