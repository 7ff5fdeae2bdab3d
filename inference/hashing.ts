/**
 * The hashing and the per-code-unit tables both featurizers are built on (text-features.ts,
 * token-features.ts): FNV-1a 32 over UTF-16 code units, finalised with murmur3 fmix32; a character
 * class and a locale-independent lowercase for every code unit. Training and serving share them, so a
 * feature gets the same bucket in both.
 */

export const FNV_PRIME = 0x01000193;

/** murmur3's 32-bit finaliser: spreads the FNV state over all bits before masking into buckets. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units of `s`, seeded, finalised with fmix32. */
export function hashString(seed: number, s: string): number {
  return fmix32(fnv(seed | 0, s));
}

/** FNV-1a state `h` continued over the code units of `s` (no finalisation): hashes of joined strings stream their parts. */
export function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

// ---------------------------------------------------------------------------------------------
// Character classes: 0 = separator (whitespace, controls), 1 = word, 2 = other (punctuation, symbols).

export const CLASS = buildClassTable();
/**
 * Per-code-unit lowercase (String#toLowerCase of the single code unit when that is one code unit,
 * else the code unit itself): the same everywhere, independent of locale.
 */
export const LOWER = buildLowerTable();

function buildLowerTable(): Uint16Array {
  const t = new Uint16Array(65536);
  for (let c = 0; c < 65536; c++) {
    if (c < 128) t[c] = c >= 65 && c <= 90 ? c + 32 : c;
    else if (c >= 0xd800 && c <= 0xdfff) t[c] = c;
    else {
      const l = String.fromCharCode(c).toLowerCase();
      t[c] = l.length === 1 ? l.charCodeAt(0) : c;
    }
  }
  return t;
}

function buildClassTable(): Uint8Array {
  const t = new Uint8Array(65536);
  const word = /[\p{L}\p{N}\p{M}]/u;
  const sep = /[\s\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u;
  for (let c = 0; c < 65536; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      t[c] = 1;
      continue;
    }
    if (c < 128) {
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) t[c] = 1;
      else if (c <= 32 || c === 127) t[c] = 0;
      else t[c] = 2;
      continue;
    }
    const ch = String.fromCharCode(c);
    t[c] = word.test(ch) ? 1 : sep.test(ch) ? 0 : 2;
  }
  return t;
}
